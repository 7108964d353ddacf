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

{% macro cdc_fold_row_states(row_states_relation, target_table, truncations=true, truncations_relation=none) %}
    {#-
        row_states_relation: rows in row-state shape (the declared columns of `target_table`,
        _cdc_reset, _cdc_column_versions, _cdc_last_change, _cdc_loaded_at,
        _cdc_truncated_before). Returns the folded row states, one per key, plus one row (every
        key null) holding the latest truncation; _cdc_is_deleted is true for tombstones and for
        that row. Columns come in the order cdc_row_state_columns() names them.
        truncations=false says that the rows hold no truncation: no key's reset is then
        compared with the table's latest truncation. truncations_relation: a relation whose
        _cdc_truncated_before holds the versions of the truncations among the rows, cheaper to
        read than row_states_relation (none: the grouped rows are read for them). Spark plans a
        CTE again at each reference: with it (and the truncation's row out of the same pass as
        the keys) the typing of new changes is planned once, not three times (shop__customers'
        eight unit tests, which assume truncations: 140 s -> 83 s, 2026-11-27).
    -#}
    {%- if truncations not in [true, false] -%}
        {{ exceptions.raise_compiler_error(
            "cdc_fold_row_states: truncations is " ~ truncations ~ ", expected true or false"
        ) }}
    {%- endif -%}
    {%- if truncations_relation is not none and not truncations -%}
        {{ exceptions.raise_compiler_error(
            "cdc_fold_row_states: truncations_relation is " ~ truncations_relation
            ~ " with truncations=false; expected truncations=true, or no truncations_relation"
        ) }}
    {%- endif -%}
    {%- set key_names = target_table.key_columns -%}
    {%- set value_columns = cdc_value_columns(target_table) -%}
    with

    grouped_rows as (
        select
            {%- for name in key_names %}
            row_states.{{ cdc_quote(name) }},
            {%- endfor %}
            max(row_states._cdc_truncated_before) as truncated_before,
            {{ cdc_column_rules('row_states', value_columns) | indent(12) }}
            max(row_states._cdc_last_change) as last_change,
            max(row_states._cdc_loaded_at) as loaded_at
        from {{ row_states_relation }} as row_states
        group by {% for name in key_names %}row_states.{{ cdc_quote(name) }}{{ ', ' if not loop.last }}{% endfor %}
    ),

    {%- if truncations %}

    latest_truncation as (
        select max(truncations.truncated_before) as version
        {%- if truncations_relation is none %}
        from grouped_rows as truncations
        {%- else %}
        from (
            select stated_truncations._cdc_truncated_before as truncated_before
            from {{ truncations_relation }} as stated_truncations
        ) as truncations
        {%- endif %}
    ),
    {%- endif %}

    -- each key's reset: its own, or the table's latest truncation if that is newer (a delete of
    -- every older row); the truncation's own row (every key null) has none
    reset_rows as (
        select
            grouped_rows.*,
            {%- if truncations %}
            case
                when grouped_rows.truncated_before is not null then null
                when
                    latest_truncation.version is not null
                    and (grouped_rows.reset is null or grouped_rows.reset.version < latest_truncation.version)
                    then named_struct('version', latest_truncation.version, 'is_delete', true)
                else grouped_rows.reset
            end as effective_reset
            {%- else %}
            grouped_rows.reset as effective_reset
            {%- endif %}
        from grouped_rows
        {%- if truncations %}
        cross join latest_truncation
        {%- endif %}
        -- keys with a change (a rejected change carries no state, and no last change), and the
        -- truncation's row
        where grouped_rows.last_change is not null or grouped_rows.truncated_before is not null
    ),

    final as (
        select
            {%- for column in target_table.columns %}
            {%- set value_index = cdc_column_position(value_columns, column.name) %}
            {%- if value_index and truncations %}
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
            reset_rows.effective_reset as _cdc_reset,
            if(
                reset_rows.truncated_before is null,
                named_struct(
                    {%- for column in value_columns %}
                    {{ cdc_sql_string(column.name) }}, {{ _cdc_version_after_reset('reset_rows', loop.index, 'effective_reset') }},
                    {%- endfor %}
                    '_cdc_none', cast(null as {{ cdc_change_version_type() }})
                ),
                null
            ) as _cdc_column_versions,
            reset_rows.last_change as _cdc_last_change,
            reset_rows.loaded_at as _cdc_loaded_at,
            reset_rows.truncated_before as _cdc_truncated_before,
            {{ _cdc_row_is_deleted('reset_rows', 'effective_reset', value_columns) }} as _cdc_is_deleted
        from reset_rows
    )

    select * from final
{% endmacro %}


{% macro cdc_column_rules(relation, value_columns, window=none) -%}
    {#-
        The fold's aggregates over the changes in `relation` (row-state shape), per key or, with
        `window` (a window name), per key up to each change: the reset (the newest whole-row
        change), and per value column its value from the newest change that sets it and that
        change's version (_version_<n>). Each ends with a comma.
    -#}
    {%- set over = ' over ' ~ window if window else '' -%}
    max_by({{ relation }}._cdc_reset, {{ relation }}._cdc_reset.version){{ over }} as reset,
    {%- for column in value_columns %}
    max_by(
        {{ relation }}.{{ cdc_quote(column.name) }},
        coalesce({{ relation }}._cdc_column_versions.{{ cdc_quote(column.name) }}, {{ relation }}._cdc_reset.version)
    ){{ over }} as {{ cdc_quote(column.name) }},
    max(
        coalesce({{ relation }}._cdc_column_versions.{{ cdc_quote(column.name) }}, {{ relation }}._cdc_reset.version)
    ){{ over }} as _version_{{ loop.index }},
    {%- endfor %}
{%- endmacro %}


{% macro _cdc_row_is_deleted(relation, reset_column, value_columns) -%}
    {#- True when the row's reset is a delete (or it has none) and no partial update is newer than it. -#}
    coalesce({{ relation }}.{{ reset_column }}.is_delete, true)
    {%- for column in value_columns %}
    and {{ _cdc_version_after_reset(relation, loop.index, reset_column) }} is null
    {%- endfor %}
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


{% macro cdc_row_state_schema(target_table, with_deleted_flag=true) -%}
    {#- The columns of a row state with their types (DDL), in cdc_row_state_columns() order
        (with_deleted_flag=false: without _cdc_is_deleted, the shape of a single change). -#}
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
    _cdc_truncated_before {{ version_type }}
    {%- if with_deleted_flag %},
    _cdc_is_deleted boolean
    {%- endif %}
{%- endmacro %}
