{#-
    Partitioned by the staging run (loaded_at), and written by insert overwrite of the partitions
    a run writes (Spark's dynamic mode): a killed run may leave files in a folder whose partition
    it never registered, for the same loaded_at the rerun writes. Appended to, that folder would
    show them beside the rerun's rows; replaced, it holds the rerun's rows only. Every partition
    written is newer than the log's newest, so no logged row is replaced.
-#}
{{ config(
    materialized='incremental',
    incremental_strategy='insert_overwrite',
    partition_by=['loaded_at'],
    post_hook="{{ cdc_mark_checked_through(this) }}",
) }}

{#-
    Every staged change, checked as the current-state tables type it (cdc_typed_changes): either
    rejected, because no current-state table declares its source table (unknown_table), it has no
    value for a key column (missing_key) or a value does not type as its column is declared
    (uncastable_value); or applied, with a fingerprint (key, change sequence, content hash) that
    the data test same_sequence_changes_agree compares across runs without typing the history
    again. int_change_rejections_logged shows the rejected ones. Each branch reads one staging
    partition, and only when changes were staged for it since the last run; source tables
    nobody declared, the rest.
-#}

{#- nothing staged since the last run's check, as the run found at its start (cdc_new_work): no query at all -#}
{%- set checked_everything = execute and is_incremental() and cdc_has_checked_everything_staged(model.name) -%}
{#- Changes staged after the last run's check (cdc_checked_through) -#}
{%- set loaded_after = cdc_checked_through(this) if execute and is_incremental() and not checked_everything else none -%}
{#- Only the tables with changes staged since the last run are typed again, from the staging models that hold them,
    with the decodings of the field schemas they carry (one probe). -#}
{%- set checked_tables = [] if checked_everything else cdc_tables_with_new_changes(loaded_after) -%}
{#- none of them: whether a change of a table nobody declared was staged since (one query that stops at the first) -#}
{%- if checked_everything or (execute and is_incremental() and not checked_tables and not cdc_any_change_staged_after(loaded_after)) %}
{#- nothing staged since: no typing to plan -#}
{{ cdc_no_new_records() }}
{%- else %}
{#- changes of a source table name that no registry entry names (cdc_source_names_match) -#}
{%- set unregistered_where -%}
(staged_records.source_table_partition is null
{%- for target_table in cdc_target_tables() -%}
{{ ' or not (' if loop.first else ' or ' }}{{ cdc_source_names_match(target_table, 'staged_records') }}{{ ')' if loop.last }}
{%- endfor -%}
)
{%- if loaded_after %} and staged_records.loaded_at > {{ loaded_after }}{% endif -%}
{%- endset -%}

with

{% for checked in checked_tables %}
{%- set target_table = checked.target_table %}
{#- an applied change that the fold orders by a sequence (not a truncation: it has no key; not a change without sequence: ordered by arrival alone) #}
{%- set has_fingerprint -%}
typed_changes.rejection_reason is null and typed_changes.change_kind != 'truncate_table' and typed_changes.change_version.sequence is not null
{%- endset %}
checked_changes_{{ loop.index }} as (
    select
        typed_changes.raw_record_id,
        typed_changes.row_index,
        typed_changes.flavour,
        typed_changes.source_database,
        typed_changes.source_schema,
        typed_changes.source_table,
        typed_changes.operation,
        if(typed_changes.rejection_reason = 'unknown_table', null, {{ cdc_sql_string(target_table.name) }}) as target_table,
        typed_changes.rejection_reason,
        typed_changes.rejection_detail,
        typed_changes.rejected_change,
        if({{ has_fingerprint }}, to_json(named_struct(
            {%- for key in target_table.key_columns %}
            {{ cdc_sql_string(key) }}, typed_changes.{{ cdc_quote(key) }}{{ ',' if not loop.last }}
            {%- endfor %}
        )), null) as row_key,
        if({{ has_fingerprint }}, typed_changes.change_version.sequence, null) as change_sequence,
        {#- the typed values themselves, each after its null flag (a hash skips nulls: without the flags a value
            in one column and in the next would hash alike); no text made per row -#}
        if({{ has_fingerprint }}, xxhash64(
            typed_changes.change_kind
            {%- for column in target_table.columns %},
            isnull(typed_changes.{{ cdc_quote(column.name) }}), typed_changes.{{ cdc_quote(column.name) }}
            {%- endfor %}
        ), null) as change_content,
        typed_changes.landing_file,
        typed_changes.landing_position,
        typed_changes.kafka_topic,
        typed_changes.kafka_partition,
        typed_changes.kafka_offset,
        typed_changes.loaded_at
    from (
        {{ cdc_typed_changes(
            target_table, loaded_after, checked.claimants, checked.staging_models, checked.schema_names,
        ) | indent(8) }}
    ) as typed_changes
),

{% endfor %}
unregistered_changes as (
    {{ cdc_staged_records('change', where=unregistered_where) | indent(4) }}
),

checked_changes as (
    {%- for checked in checked_tables %}
    select * from checked_changes_{{ loop.index }}
    union all
    {%- endfor %}
    select
        unregistered_changes.raw_record_id,
        unregistered_changes.row_index,
        unregistered_changes.flavour,
        unregistered_changes.source_database,
        unregistered_changes.source_schema,
        unregistered_changes.source_table,
        unregistered_changes.operation,
        cast(null as string) as target_table,
        'unknown_table' as rejection_reason,
        concat_ws(
            '.', unregistered_changes.source_database, unregistered_changes.source_schema, unregistered_changes.source_table
        ) as rejection_detail,
        {{ cdc_change_as_json('unregistered_changes') | indent(8) }} as rejected_change,
        cast(null as string) as row_key,
        cast(null as array<bigint>) as change_sequence,
        cast(null as bigint) as change_content,
        unregistered_changes.landing_file,
        unregistered_changes.landing_position,
        unregistered_changes.kafka_topic,
        unregistered_changes.kafka_partition,
        unregistered_changes.kafka_offset,
        unregistered_changes.loaded_at
    from unregistered_changes
),

final as (
    select
        checked_changes.raw_record_id,
        checked_changes.row_index,
        checked_changes.flavour,
        checked_changes.source_database,
        checked_changes.source_schema,
        checked_changes.source_table,
        checked_changes.operation,
        checked_changes.target_table,
        checked_changes.rejection_reason,
        checked_changes.rejection_detail,
        {#- the whole change only when rejected (the typing writes it): an applied one is in its current-state table -#}
        checked_changes.rejected_change,
        checked_changes.row_key,
        checked_changes.change_sequence,
        checked_changes.change_content,
        checked_changes.landing_file,
        checked_changes.landing_position,
        checked_changes.kafka_topic,
        checked_changes.kafka_partition,
        checked_changes.kafka_offset,
        checked_changes.loaded_at
    from checked_changes
)

select * from final
{%- endif %}
