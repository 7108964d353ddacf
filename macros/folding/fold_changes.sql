{#-
    Folding changes into row state, for one target table, with typed columns.

    A row state and a single change have the same shape (cdc_typed_changes gives one row per
    change in it), so one fold serves three places: the new changes of a run (the delta it
    appends), the view that combines the stored base with the deltas, and the compaction that
    folds deltas into the base. The fold is associative and idempotent: fold(A + B) =
    fold(fold(A) + fold(B)) and folding a change twice changes nothing, so the state does not
    depend on how changes were split into runs, nor on duplicates or late arrivals.

    Every change has a version (cdc_change_version_type): sequence, then arrival. Per key:
      reset    = the whole-row change (replace or delete) with the highest version, or the
                 table's latest truncation if that is higher (a delete of every older row)
      column c = the value from the newest change that sets c: the reset sets every column
                 (a delete sets them to null), a partial update sets the columns it carries
      deleted  = the reset is a delete and no partial update is newer than it (a tombstone:
                 it stays in the state so that an older change arriving late stays ignored);
                 a row no change applies to (only rejected changes) does not exist
    An update for a key never seen creates the row from the columns it carries.

    Each rule is a native aggregate (max_by / max over the version struct), which Spark runs
    with generated code; nothing is kept per column but the version of a value set by a
    partial update newer than the reset (null otherwise, which Parquet stores for free).
-#}

{% macro cdc_fold_row_states(row_states_relation, target_table, truncations=true) %}
    {#-
        row_states_relation: rows in row-state shape (the declared columns of `target_table`,
        _cdc_reset, _cdc_column_versions, _cdc_last_change, _cdc_loaded_at,
        _cdc_truncated_before). Returns the folded row states, one per key, plus one row (every
        key null) holding the latest truncation; _cdc_is_deleted is true for tombstones and for
        that row. Columns come in the order cdc_row_state_columns() names them.
        truncations=false says that the rows hold no truncation: the fold is then one pass over
        the grouped rows, which reads `row_states_relation` once (the truncation rule joins the
        grouped rows with their latest truncation, and Spark inlines a query each time it is
        referenced: three times the plan of the new changes).
    -#}
    {%- if truncations not in [true, false] -%}
        {{ exceptions.raise_compiler_error(
            "cdc_fold_row_states: truncations is " ~ truncations ~ ", expected true or false"
        ) }}
    {%- endif -%}
    {%- set key_names = target_table.key_columns -%}
    {%- set value_columns = [] -%}
    {%- for column in target_table.columns if column.name not in key_names -%}
        {%- do value_columns.append(column) -%}
    {%- endfor -%}
    with

    grouped_rows as (
        select
            {%- for name in key_names %}
            row_states.{{ cdc_quote(name) }},
            {%- endfor %}
            max(row_states._cdc_truncated_before) as truncated_before,
            max_by(row_states._cdc_reset, row_states._cdc_reset.version) as reset,
            {%- for column in value_columns %}
            max_by(
                row_states.{{ cdc_quote(column.name) }},
                coalesce(row_states._cdc_column_versions.{{ cdc_quote(column.name) }}, row_states._cdc_reset.version)
            ) as {{ cdc_quote(column.name) }},
            max(
                coalesce(row_states._cdc_column_versions.{{ cdc_quote(column.name) }}, row_states._cdc_reset.version)
            ) as _version_{{ loop.index }},
            {%- endfor %}
            max(row_states._cdc_last_change) as last_change,
            max(row_states._cdc_loaded_at) as loaded_at
        from {{ row_states_relation }} as row_states
        group by {% for name in key_names %}row_states.{{ cdc_quote(name) }}{{ ', ' if not loop.last }}{% endfor %}
    ),

    {%- if not truncations %}

    -- no truncation: the reset of each key is its own
    key_rows as (
        select
            {%- for column in target_table.columns %}
            grouped_rows.{{ cdc_quote(column.name) }},
            {%- endfor %}
            {{ _cdc_key_row_state('grouped_rows', 'reset', value_columns) | indent(12) }}
        from grouped_rows
        -- keys with a change (a rejected change carries no state, and no last change)
        where grouped_rows.last_change is not null
    )

    select * from key_rows
    {%- else %}

    latest_truncation as (
        select max(grouped_rows.truncated_before) as version
        from grouped_rows
    ),

    reset_rows as (
        select
            grouped_rows.*,
            case
                when
                    latest_truncation.version is not null
                    and (grouped_rows.reset is null or grouped_rows.reset.version < latest_truncation.version)
                    then named_struct('version', latest_truncation.version, 'is_delete', true)
                else grouped_rows.reset
            end as effective_reset
        from grouped_rows
        cross join latest_truncation
        -- keys with a change (a rejected change carries no state, and no last change)
        where grouped_rows.truncated_before is null and grouped_rows.last_change is not null
    ),

    key_rows as (
        select
            {%- for column in target_table.columns %}
            {%- set value_index = cdc_column_position(value_columns, column.name) %}
            {%- if value_index %}
            -- a value older than the reset (a truncation newer than it) is gone
            if(
                reset_rows._version_{{ value_index }} < reset_rows.effective_reset.version,
                null,
                reset_rows.{{ cdc_quote(column.name) }}
            ) as {{ cdc_quote(column.name) }},
            {%- else %}
            reset_rows.{{ cdc_quote(column.name) }},
            {%- endif %}
            {%- endfor %}
            {{ _cdc_key_row_state('reset_rows', 'effective_reset', value_columns) | indent(12) }}
        from reset_rows
    ),

    truncation_rows as (
        select
            {%- for column in target_table.columns %}
            null as {{ cdc_quote(column.name) }},
            {%- endfor %}
            null as _cdc_reset,
            null as _cdc_column_versions,
            grouped_rows.last_change as _cdc_last_change,
            grouped_rows.loaded_at as _cdc_loaded_at,
            grouped_rows.truncated_before as _cdc_truncated_before,
            true as _cdc_is_deleted
        from grouped_rows
        where grouped_rows.truncated_before is not null
    ),

    final as (
        select * from key_rows
        union all
        select * from truncation_rows
    )

    select * from final
    {%- endif %}
{% endmacro %}


{% macro _cdc_key_row_state(relation, reset_column, value_columns) -%}
    {#- The row-state columns after the declared ones, for a key's grouped row whose reset is `reset_column`. -#}
    {{ relation }}.{{ reset_column }} as _cdc_reset,
    named_struct(
        {%- for column in value_columns %}
        {{ cdc_sql_string(column.name) }}, {{ _cdc_version_after_reset(relation, loop.index, reset_column) }},
        {%- endfor %}
        '_cdc_none', cast(null as {{ cdc_change_version_type() }})
    ) as _cdc_column_versions,
    {{ relation }}.last_change as _cdc_last_change,
    {{ relation }}.loaded_at as _cdc_loaded_at,
    cast(null as {{ cdc_change_version_type() }}) as _cdc_truncated_before,
    coalesce({{ relation }}.{{ reset_column }}.is_delete, true)
    {%- for column in value_columns %}
    and {{ _cdc_version_after_reset(relation, loop.index, reset_column) }} is null
    {%- endfor %} as _cdc_is_deleted
{%- endmacro %}


{% macro _cdc_version_after_reset(relation, index, reset_column) -%}
    {#- The version of value column `index` when it is newer than the row's reset (set by a later partial update). -#}
    if(
        {{ relation }}.{{ reset_column }} is null or {{ relation }}._version_{{ index }} > {{ relation }}.{{ reset_column }}.version,
        {{ relation }}._version_{{ index }},
        null
    )
{%- endmacro %}


{% macro cdc_row_state_columns(target_table) %}
    {#- The columns of a row state, in order: what the fold returns and the state table stores. -#}
    {%- set names = [] -%}
    {%- for column in target_table.columns -%}
        {%- do names.append(column.name) -%}
    {%- endfor -%}
    {{ return(names + ['_cdc_reset', '_cdc_column_versions', '_cdc_last_change', '_cdc_loaded_at',
                       '_cdc_truncated_before', '_cdc_is_deleted']) }}
{% endmacro %}


{% macro cdc_row_state_schema(target_table) -%}
    {#- The columns of a row state with their types (DDL), in cdc_row_state_columns() order. -#}
    {%- set version_type = cdc_change_version_type() -%}
    {%- for column in target_table.columns %}
    {{ cdc_quote(column.name) }} {{ column.data_type }},
    {%- endfor %}
    _cdc_reset struct<version: {{ version_type }}, is_delete: boolean>,
    _cdc_column_versions struct<
        {%- for column in target_table.columns if column.name not in target_table.key_columns -%}
        {{ cdc_quote(column.name) }}: {{ version_type }},
        {%- endfor -%}
        _cdc_none: {{ version_type }}>,
    _cdc_last_change struct<version: {{ version_type }}, operation: string, commit_timestamp: timestamp>,
    _cdc_loaded_at timestamp,
    _cdc_truncated_before {{ version_type }},
    _cdc_is_deleted boolean
{%- endmacro %}



{% macro cdc_moved_rows_resolved(changes_relation, target_table, stored_rows_relation=none) %}
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
        to find the moves' old keys and the latest truncation. Two limits, documented in
        docs/change_event_contract.md: a chain of partial key changes of one row within one run
        moves, at its second step, only what the first step carried; and an old key whose
        stored state is newer than the move (a late move) gives the new key only what the move
        carries.
    -#}
    {%- set key_names = target_table.key_columns -%}
    {%- set value_names = [] -%}
    {%- for column in target_table.columns if column.name not in key_names -%}
        {%- do value_names.append(column.name) -%}
    {%- endfor -%}
    {#- the row-state columns but _cdc_is_deleted (cdc_row_state_columns, whose return sqlfluff's templater would let escape from here) -#}
    {%- set declared_names = target_table.columns | map(attribute='name') | list -%}
    {%- set state_names = declared_names + ['_cdc_reset', '_cdc_column_versions', '_cdc_last_change', '_cdc_loaded_at', '_cdc_truncated_before'] -%}
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

    -- a value set before the latest truncation is gone
    latest_truncation as (
        select max(truncations._cdc_truncated_before) as version
        from (
            select changes._cdc_truncated_before from {{ changes_relation }} as changes
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
