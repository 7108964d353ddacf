{#-
    Folding changes into row state. The fold is independent of the order and the batches in
    which changes arrive: a row's state is a function of the set of its changes, so that
    folding (previous state + new changes) equals folding every change at once.

    Change kinds (int_change_events_keyed.change_kind):
      replace_row     insert, snapshot read, or an update that carries every declared column
      update_columns  an update that carries some declared columns (partial image)
      delete_row      delete, or the old key of a key change
    Every change has a version (cdc_change_version_type): sequence, then arrival.

    The state of a row, given all its changes:
      reset    = the replace_row / delete_row change with the highest version, or the table's
                 latest truncation if that is higher (a truncation deletes every older row)
      columns  = the reset's image (nothing after a delete), overlaid column by column with the
                 update_columns changes newer than the reset, the newest one winning per column
      deleted  = the reset is a delete and no update came after it (the row is a tombstone:
                 it stays in the state so that an older change arriving late stays ignored)
    An update for a key never seen creates the row from the columns it carries.

    The state keeps what a later fold needs: the reset's version and, for each column set by a
    later update, that update's version. A stored state turns back into changes with
    cdc_row_state_as_changes.
-#}

{% macro cdc_fold_group_changes(changes_relation) %}
    {#- Per row: its latest reset, its column updates, its latest change. -#}
    select
        changes.target_table,
        changes.key_bucket,
        changes.row_key,
        max_by(
            named_struct('version', changes.change_version, 'kind', changes.change_kind, 'image', changes.row_image),
            changes.change_version
        ) filter (where changes.change_kind in ('replace_row', 'delete_row')) as last_reset,
        collect_list(
            named_struct('version', changes.change_version, 'image', changes.row_image)
        ) filter (where changes.change_kind = 'update_columns') as column_updates,
        max(changes.last_change) as last_change,
        max(changes.loaded_at) as loaded_at
    from {{ changes_relation }} as changes
    group by
        changes.target_table,
        changes.key_bucket,
        changes.row_key
{% endmacro %}


{% macro cdc_fold_apply_truncations(grouped_relation, truncations_relation) %}
    {#- A truncation newer than a row's reset becomes its reset: a delete at the truncation's version. -#}
    select
        grouped.target_table,
        grouped.key_bucket,
        grouped.row_key,
        case
            when
                truncations.truncate_version is not null
                and (grouped.last_reset is null or truncations.truncate_version > grouped.last_reset.version)
                then named_struct(
                    'version', truncations.truncate_version,
                    'kind', 'delete_row',
                    'image', cast(null as map<string, string>)
                )
            else grouped.last_reset
        end as reset,
        grouped.column_updates,
        grouped.last_change,
        grouped.loaded_at
    from {{ grouped_relation }} as grouped
    left join {{ truncations_relation }} as truncations
        on grouped.target_table = truncations.target_table
{% endmacro %}


{% macro cdc_fold_row_states(reset_relation) %}
    {#- The row state: reset image overlaid with the newer column updates, in version order. -#}
    select
        resets.target_table,
        resets.row_key,
        if(
            resets.reset.kind = 'delete_row' and size(updates_after_reset) = 0,
            null,
            aggregate(
                updates_after_reset,
                coalesce(resets.reset.image, cast(map() as map<string, string>)),
                (row_values, column_update) -> map_concat(
                    map_filter(row_values, (column_name, column_value) -> not map_contains_key(column_update.image, column_name)),
                    column_update.image
                )
            )
        ) as row_values,
        coalesce(resets.reset.kind = 'delete_row' and size(updates_after_reset) = 0, false) as is_deleted,
        resets.reset.version as reset_version,
        aggregate(
            updates_after_reset,
            cast(map() as map<string, {{ cdc_change_version_type() }}>),
            (column_versions, column_update) -> map_concat(
                map_filter(
                    column_versions,
                    (column_name, column_version) -> not map_contains_key(column_update.image, column_name)
                ),
                transform_values(column_update.image, (column_name, column_value) -> column_update.version)
            )
        ) as column_versions,
        resets.last_change,
        resets.loaded_at,
        resets.key_bucket
    from (
        select
            reset_rows.*,
            array_sort(
                filter(
                    reset_rows.column_updates,
                    column_update -> reset_rows.reset is null or column_update.version > reset_rows.reset.version
                ),
                (left_update, right_update) -> case
                    when left_update.version < right_update.version then -1
                    when left_update.version > right_update.version then 1
                    else 0
                end
            ) as updates_after_reset
        from {{ reset_relation }} as reset_rows
    ) as resets
{% endmacro %}


{% macro cdc_row_state_as_changes(row_states_relation) %}
    {#-
        Stored row states as the changes that rebuild them: the reset (replace or delete) and
        one single-column update per column set after it. Folding these with new changes
        gives the same state as folding every change ever seen.
    -#}
    select
        row_states.target_table,
        row_states.key_bucket,
        row_states.row_key,
        if(row_states.is_deleted, 'delete_row', 'replace_row') as change_kind,
        row_states.reset_version as change_version,
        if(
            row_states.is_deleted,
            null,
            map_filter(
                row_states.row_values,
                (column_name, column_value) -> not map_contains_key(row_states.column_versions, column_name)
            )
        ) as row_image,
        row_states.last_change,
        row_states.loaded_at
    from {{ row_states_relation }} as row_states
    where row_states.reset_version is not null

    union all

    select
        row_states.target_table,
        row_states.key_bucket,
        row_states.row_key,
        'update_columns' as change_kind,
        column_version.version as change_version,
        map(column_version.column_name, row_states.row_values[column_version.column_name]) as row_image,
        row_states.last_change,
        row_states.loaded_at
    from {{ row_states_relation }} as row_states
    lateral view explode(row_states.column_versions) column_version as column_name, version
{% endmacro %}
