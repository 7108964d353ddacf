{#-
    History tables (SCD type 2). A target whose YAML says `meta.cdc.history: true` keeps, beside
    its current state (macros/marts/current_state.sql):

      <model>__cdc_changes   table, partitioned by _cdc_batch: every applied change, typed, in
                             row-state shape, one batch per run. The current state's delta of a
                             run is the fold of its batch, so both read the same changes.
      <model>__cdc_history   table, partitioned by _cdc_batch: versions. Each run writes the
                             whole history of the keys its changes touch as one more batch.
      <model>_history        view: one row per version of each key. A key's versions are those
                             of the latest batch that holds the key.

    A version is a state of the row that differs from the state before it. The row after each
    change is the fold's rules (macros/folding/fold_changes.sql) over the key's changes up to it
    in change order (sequence, then arrival), so a late change lands where its sequence puts it
    and the versions after it are rebuilt. A change that leaves every value as it was (a
    duplicate, a same-value update) opens no version; a delete closes the current one; a
    truncation closes every open version of the table.
-#}

{% macro cdc_history_versions(changes_relation, target_table, rebuilt_batch=none) %}
    {#-
        The versions of the keys whose history is rebuilt, from `changes_relation` (a
        <model>__cdc_changes table): the keys with a change in batch `rebuilt_batch`, or every
        key (none). One row per version: the declared columns, valid_from, valid_to, is_current
        and _cdc (the change that opened the version). valid_from is the commit time of that
        change; when a source's clock goes back against the sequence, the latest commit time
        before it, so that a key's intervals never overlap.
    -#}
    {%- if rebuilt_batch is not none and rebuilt_batch is not number -%}
        {{ exceptions.raise_compiler_error(
            "cdc_history_versions: rebuilt_batch is " ~ rebuilt_batch ~ ", expected a batch number or none"
        ) }}
    {%- endif -%}
    {%- set key_names = target_table.key_columns -%}
    {%- set value_columns = cdc_value_columns(target_table) -%}
    {%- set key_list -%}
        {%- for name in key_names %}{{ cdc_quote(name) }}{{ ', ' if not loop.last }}{% endfor -%}
    {%- endset -%}
    with

    -- the changes of the keys whose history is rebuilt
    key_changes as (
        select changes.*
        from {{ changes_relation }} as changes
        {%- if rebuilt_batch is not none %}
        left semi join (
            select {% for name in key_names %}new_changes.{{ cdc_quote(name) }}{{ ', ' if not loop.last }}{% endfor %}
            from {{ changes_relation }} as new_changes
            where {{ cdc_in_batch('new_changes', rebuilt_batch) }} and new_changes._cdc_truncated_before is null
        ) as rebuilt_keys
            on
                {%- for name in key_names %}
                changes.{{ cdc_quote(name) }} = rebuilt_keys.{{ cdc_quote(name) }}{{ ' and' if not loop.last }}
                {%- endfor %}
        {%- endif %}
        where changes._cdc_truncated_before is null
    ),

    -- a truncation deletes every row of the table that exists at its version
    truncations as (
        select
            changes._cdc_truncated_before as version,
            changes._cdc_last_change,
            changes._cdc_loaded_at
        from {{ changes_relation }} as changes
        where changes._cdc_truncated_before is not null
    ),

    key_truncations as (
        select
            {%- for column in target_table.columns %}
            {%- if column.name in key_names %}
            truncated_keys.{{ cdc_quote(column.name) }},
            {%- else %}
            cast(null as {{ column.data_type }}) as {{ cdc_quote(column.name) }},
            {%- endif %}
            {%- endfor %}
            named_struct('version', truncations.version, 'is_delete', true) as _cdc_reset,
            null as _cdc_column_versions,
            truncations._cdc_last_change,
            truncations._cdc_loaded_at
        from (select distinct {{ key_list }} from key_changes) as truncated_keys
        cross join truncations
    ),

    all_changes as (
        select
            {%- for column in target_table.columns %}
            key_changes.{{ cdc_quote(column.name) }},
            {%- endfor %}
            key_changes._cdc_reset,
            key_changes._cdc_column_versions,
            key_changes._cdc_last_change,
            key_changes._cdc_loaded_at
        from key_changes
        union all
        select * from key_truncations
    ),

    -- the row after each change: the fold's rules over the key's changes up to it
    row_after_change as (
        select
            {%- for name in key_names %}
            all_changes.{{ cdc_quote(name) }},
            {%- endfor %}
            {{ cdc_column_rules('all_changes', value_columns, window='changes_so_far') | indent(12) }}
            max(all_changes._cdc_last_change.commit_timestamp) over changes_so_far as valid_from,
            all_changes._cdc_last_change as change,
            all_changes._cdc_loaded_at as loaded_at
        from all_changes
        window changes_so_far as (
            partition by {% for name in key_names %}all_changes.{{ cdc_quote(name) }}{{ ', ' if not loop.last }}{% endfor %}
            order by all_changes._cdc_last_change.version
            rows between unbounded preceding and current row
        )
    ),

    row_states as (
        select
            row_after_change.*,
            {{ _cdc_row_is_deleted('row_after_change', 'reset', value_columns) | indent(12) }} as is_deleted,
            named_struct(
                {%- for column in value_columns %}
                {{ cdc_sql_string(column.name) }}, row_after_change.{{ cdc_quote(column.name) }},
                {%- endfor %}
                '_cdc_none', null
            ) as row_values
        from row_after_change
    ),

    -- a change opens a version when the row exists after it and differs from the row before;
    -- it closes the open version when it deletes the row
    boundaries as (
        select
            row_states.*,
            not row_states.is_deleted as opens_version
        from (
            select
                row_states.*,
                lag(row_states.is_deleted) over key_order as deleted_before,
                lag(row_states.row_values) over key_order as values_before
            from row_states
            window key_order as (
                partition by {% for name in key_names %}row_states.{{ cdc_quote(name) }}{{ ', ' if not loop.last }}{% endfor %}
                order by row_states.change.version
            )
        ) as row_states
        where
            (not row_states.is_deleted and (
                coalesce(row_states.deleted_before, true) or not (row_states.row_values <=> row_states.values_before)
            ))
            or (row_states.is_deleted and not coalesce(row_states.deleted_before, true))
    ),

    versions as (
        select
            boundaries.*,
            lead(boundaries.valid_from) over key_order as valid_to,
            lead(boundaries.change.version) over key_order is null as is_current
        from boundaries
        window key_order as (
            partition by {% for name in key_names %}boundaries.{{ cdc_quote(name) }}{{ ', ' if not loop.last }}{% endfor %}
            order by boundaries.change.version
        )
    ),

    final as (
        select
            {%- for column in target_table.columns %}
            versions.{{ cdc_quote(column.name) }},
            {%- endfor %}
            versions.valid_from,
            versions.valid_to,
            versions.is_current,
            {{ cdc_change_column('versions.change', 'versions.loaded_at') | indent(12) }} as _cdc
        from versions
        where versions.opens_version
    )

    select * from final
{% endmacro %}


{% macro cdc_history_schema(target_table) -%}
    {#- The columns of a history table with their types (DDL), in cdc_history_versions() order. -#}
    {%- for column in target_table.columns %}
    {{ cdc_quote(column.name) }} {{ column.data_type }},
    {%- endfor %}
    valid_from timestamp,
    valid_to timestamp,
    is_current boolean,
    _cdc struct<operation: string, change_sequence: array<bigint>, commit_timestamp: timestamp, loaded_at: timestamp>
{%- endmacro %}


{% macro cdc_history_view_sql(target_table, history_state_relation, base=0) %}
    {#-
        The versions of every key: those of the latest batch of `history_state_relation` that
        holds the key. `base` is the lowest batch (0 until a compaction writes a new one above
        the others), which no batch is earlier than: its keys are not looked for among the later
        batches' keys, which are few, and none but the base after a compaction.
        (cdc_in_batch stops the model when `base` is not a batch number.)
    -#}
    {%- set key_names = target_table.key_columns %}
    select
        {%- for column in target_table.columns %}
        versions.{{ cdc_quote(column.name) }},
        {%- endfor %}
        versions.valid_from,
        versions.valid_to,
        versions.is_current,
        versions._cdc
    from {{ history_state_relation }} as versions
    -- a key rebuilt by a later batch: its versions there replace these
    left anti join (
        select distinct
            {%- for name in key_names %}
            rebuilt_versions.{{ cdc_quote(name) }},
            {%- endfor %}
            rebuilt_versions._cdc_batch
        from {{ history_state_relation }} as rebuilt_versions
        where not {{ cdc_in_batch('rebuilt_versions', base) }}
    ) as later_batches
        on
            {%- for name in key_names %}
            versions.{{ cdc_quote(name) }} = later_batches.{{ cdc_quote(name) }} and
            {%- endfor %}
            later_batches._cdc_batch > versions._cdc_batch
{% endmacro %}


{% macro cdc_changes_relation(relation) %}
    {#- The applied changes (`<model>__cdc_changes`) behind the current-state view `relation` of a table with history. -#}
    {{ return(api.Relation.create(
        database=relation.database, schema=relation.schema, identifier=relation.identifier ~ '__cdc_changes', type='table'
    )) }}
{% endmacro %}


{% macro cdc_history_state_relation(relation) %}
    {#- The table of version batches (`<model>__cdc_history`) behind the history view of the current-state view `relation`. -#}
    {{ return(api.Relation.create(
        database=relation.database, schema=relation.schema, identifier=relation.identifier ~ '__cdc_history', type='table'
    )) }}
{% endmacro %}


{% macro cdc_history_relation(relation) %}
    {#- The history view (`<model>_history`: one row per version of each key) of the current-state view `relation`. -#}
    {{ return(api.Relation.create(
        database=relation.database, schema=relation.schema, identifier=relation.identifier ~ '_history', type='view'
    )) }}
{% endmacro %}


{% macro cdc_in_batch(relation_alias, batch) -%}
    {#-
        True for the rows of `relation_alias` in batch `batch` (its _cdc_batch partition). The
        partition value is compared as text: a Derby metastore (the local profile's) cannot
        filter an integer partition column, and Spark asks it to when the filter is numeric.
    -#}
    {%- if batch is not number -%}
        {{ exceptions.raise_compiler_error("cdc_in_batch: batch is " ~ batch ~ ", expected a batch number") }}
    {%- endif -%}
    cast({{ relation_alias }}._cdc_batch as string) = '{{ batch | int }}'
{%- endmacro %}
