{#-
    Key changes carried by partial images (macros/typing/typed_changes.sql: change_kind
    move_row): the whole row moves to the new key. In a file of its own so that it can call the
    folding macros (sqlfluff's templater lets a same-file macro's return escape its caller).
-#}

{% macro cdc_moved_rows_resolved(changes_relation, target_table, stored_rows_relation=none, truncations=true, truncations_relation=none) %}
    {#-
        A key change carried by a partial image (change_kind move_row: a Shareplex update whose
        `data` changes a key column but leaves other columns out) moves the whole row: the new
        key gets the old key's row as it was just before the change, with the columns the
        change carries in place. Returns the rows of `changes_relation` (cdc_typed_changes with
        moves_whole_rows) in row-state shape, each move_row turned into a whole-row change (a
        reset at its version) of those values.

        The old row as of the change is the fold's column rule over what is known of the old
        key before the move: this run's changes of it and its stored row state in
        `stored_rows_relation` (none: no stored state) when that precedes the move, less what
        a truncation removed. One window over the changes, partitioned by the key a change
        reads from (the old key for a move), gives it, so the changes are read once more only
        to find the moves' old keys, and for the latest truncation unless
        `truncations_relation` (a cheaper relation with the truncations' versions in
        _cdc_truncated_before) is given. Two limits, documented in
        docs/change_event_contract.md: a chain of partial key changes of one row within one run
        moves, at its second step, only what the first step carried; and an old key whose
        stored state is newer than the move (a late move) gives the new key only what the move
        carries.
    -#}
    {%- set key_names = target_table.key_columns -%}
    {%- set value_names = cdc_value_columns(target_table) | map(attribute='name') | list -%}
    {%- set declared_names = target_table.columns | map(attribute='name') | list -%}
    {%- set state_names = cdc_row_state_columns(target_table) | reject('equalto', '_cdc_is_deleted') | list -%}
    with
    {%- if stored_rows_relation is not none %}

    -- the stored row states of the keys that moves leave: the only stored rows read
    stored_old_rows as (
        select stored.*
        from {{ stored_rows_relation }} as stored
        left semi join (
            select changes._cdc_moved_from
            from {{ changes_relation }} as changes
            where changes.change_kind = 'move_row'
        ) as moves
            on
                {%- for name in key_names %}
                stored.{{ cdc_quote(name) }} = moves._cdc_moved_from.{{ cdc_quote(name) }}{{ ' and' if not loop.last }}
                {%- endfor %}
    ),
    {%- endif %}

    -- each change under the key it reads from: its own, or the old key for a move
    history as (
        select
            {%- for name in state_names %}
            changes.{{ cdc_quote(name) if name in declared_names else name }},
            {%- endfor %}
            changes.change_kind,
            changes.change_version as _history_version,
            {%- for name in key_names %}
            coalesce(changes._cdc_moved_from.{{ cdc_quote(name) }}, changes.{{ cdc_quote(name) }}) as _history_key_{{ loop.index }}{{ ',' if not loop.last }}
            {%- endfor %}
        from {{ changes_relation }} as changes
        {%- if stored_rows_relation is not none %}
        union all
        select
            {%- for name in state_names %}
            stored_old_rows.{{ cdc_quote(name) if name in declared_names else name }},
            {%- endfor %}
            'stored_row' as change_kind,
            stored_old_rows._cdc_last_change.version as _history_version,
            {%- for name in key_names %}
            stored_old_rows.{{ cdc_quote(name) }} as _history_key_{{ loop.index }}{{ ',' if not loop.last }}
            {%- endfor %}
        from stored_old_rows
        {%- endif %}
    ),

    -- a value set before the latest truncation is gone (the changes are read for it only when they hold one)
    latest_truncation as (
        select max(truncations._cdc_truncated_before) as version
        from (
            select cast(null as {{ cdc_change_version_type() }}) as _cdc_truncated_before
            {%- if truncations %}
            union all
            select changes._cdc_truncated_before from {{ truncations_relation or changes_relation }} as changes
            where changes._cdc_truncated_before is not null
            {%- endif %}
            {%- if stored_rows_relation is not none %}
            union all
            select stored._cdc_truncated_before from {{ stored_rows_relation }} as stored
            where stored._cdc_truncated_before is not null
            {%- endif %}
        ) as truncations
    ),

    -- per column, the fold's rule over the earlier changes of the key read from
    old_rows as (
        select
            history.*,
            {%- for name in value_names %}
            max_by(
                history.{{ cdc_quote(name) }},
                coalesce(history._cdc_column_versions.{{ cdc_quote(name) }}, history._cdc_reset.version)
            ) over earlier_changes as _old_value_{{ loop.index }},
            max(coalesce(history._cdc_column_versions.{{ cdc_quote(name) }}, history._cdc_reset.version))
                over earlier_changes as _old_version_{{ loop.index }}{{ ',' if not loop.last }}
            {%- endfor %}
        from history
        window earlier_changes as (
            partition by {% for name in key_names %}history._history_key_{{ loop.index }}{{ ', ' if not loop.last }}{% endfor %}
            -- a move before the other changes of its version (the delete of its old key)
            order by history._history_version, if(history.change_kind = 'move_row', 0, 1)
            rows between unbounded preceding and 1 preceding
        )
    ),

    final as (
        select
            {%- for column in target_table.columns %}
            {%- if column.name in key_names %}
            old_rows.{{ cdc_quote(column.name) }},
            {%- else %}
            {%- set index = value_names.index(column.name) + 1 %}
            if(
                old_rows.change_kind = 'move_row' and old_rows._cdc_column_versions.{{ cdc_quote(column.name) }} is null,
                if(
                    old_rows._old_version_{{ index }} < latest_truncation.version,
                    null,
                    old_rows._old_value_{{ index }}
                ),
                old_rows.{{ cdc_quote(column.name) }}
            ) as {{ cdc_quote(column.name) }},
            {%- endif %}
            {%- endfor %}
            if(
                old_rows.change_kind = 'move_row',
                named_struct('version', old_rows._history_version, 'is_delete', false),
                old_rows._cdc_reset
            ) as _cdc_reset,
            if(old_rows.change_kind = 'move_row', null, old_rows._cdc_column_versions) as _cdc_column_versions,
            old_rows._cdc_last_change,
            old_rows._cdc_loaded_at,
            old_rows._cdc_truncated_before
        from old_rows
        cross join latest_truncation
        where old_rows.change_kind != 'stored_row'
    )

    select * from final
{% endmacro %}
