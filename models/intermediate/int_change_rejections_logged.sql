{#- Partitioned by the staging run (loaded_at): a run's rows appear at once, never half, so a killed run logs nothing. -#}
{{ config(
    materialized='incremental',
    incremental_strategy='append',
    partition_by=['loaded_at'],
    post_hook="{{ cdc_mark_checked_through(this) }}",
) }}

{#-
    Every staged change that no current-state table can apply: its source table is not in the
    registry (unknown_table), or the change has no value for a key column (missing_key), or a
    value does not type as its column is declared (uncastable_value). The typing is the one the
    current-state tables use (cdc_typed_changes), so a change is applied there or logged here.
    Each branch reads one staging partition, and only when changes were staged for it since the
    last run; source tables nobody declared, the rest.
-#}

{#- Changes staged after the last run's check (most runs log no rejection, so not the log's own newest row) -#}
{%- set loaded_after = cdc_checked_through(this) if execute and is_incremental() else none -%}
{%- if execute and is_incremental() and not cdc_any_change_staged_after(loaded_after) %}
{#- nothing staged since: no typing to plan, no probe to run -#}
{{ cdc_no_new_records() }}
{%- else %}
{#- Only the tables with changes staged since the last run are typed again, from the staging models that hold them,
    with the decodings of the field schemas they carry (one probe). -#}
{%- set checked_tables = cdc_tables_with_new_changes(loaded_after) -%}
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
rejected_changes_{{ loop.index }} as (
    select
        {{ cdc_sql_string(checked.target_table.name) }} as target_table,
        typed_changes.*
    from (
        {{ cdc_typed_changes(
            checked.target_table, loaded_after, checked.claimants, checked.staging_models, checked.schema_names,
        ) | indent(8) }}
    ) as typed_changes
    {{ cdc_keep_rows_where('typed_changes.rejection_reason is not null') }}
),

{% endfor %}
unregistered_changes as (
    {{ cdc_staged_records('change', where=unregistered_where) | indent(4) }}
),

rejections as (
    {%- for target_table in checked_tables %}
    select
        rejected_changes_{{ loop.index }}.raw_record_id,
        rejected_changes_{{ loop.index }}.row_index,
        rejected_changes_{{ loop.index }}.flavour,
        rejected_changes_{{ loop.index }}.source_database,
        rejected_changes_{{ loop.index }}.source_schema,
        rejected_changes_{{ loop.index }}.source_table,
        rejected_changes_{{ loop.index }}.operation,
        if(
            rejected_changes_{{ loop.index }}.rejection_reason = 'unknown_table',
            null,
            rejected_changes_{{ loop.index }}.target_table
        ) as target_table,
        rejected_changes_{{ loop.index }}.rejection_reason,
        rejected_changes_{{ loop.index }}.rejection_detail,
        rejected_changes_{{ loop.index }}.key_image,
        rejected_changes_{{ loop.index }}.before_image,
        rejected_changes_{{ loop.index }}.after_image,
        rejected_changes_{{ loop.index }}.landing_file,
        rejected_changes_{{ loop.index }}.landing_position,
        rejected_changes_{{ loop.index }}.kafka_topic,
        rejected_changes_{{ loop.index }}.kafka_partition,
        rejected_changes_{{ loop.index }}.kafka_offset,
        rejected_changes_{{ loop.index }}.loaded_at
    from rejected_changes_{{ loop.index }}
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
        unregistered_changes.key_image,
        unregistered_changes.before_image,
        unregistered_changes.after_image,
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
        rejections.raw_record_id,
        rejections.row_index,
        rejections.flavour,
        rejections.source_database,
        rejections.source_schema,
        rejections.source_table,
        rejections.operation,
        rejections.target_table,
        rejections.rejection_reason,
        rejections.rejection_detail,
        to_json(
            named_struct(
                'operation', rejections.operation,
                'key', rejections.key_image,
                'before', rejections.before_image,
                'after', rejections.after_image
            )
        ) as rejected_change,
        rejections.landing_file,
        rejections.landing_position,
        rejections.kafka_topic,
        rejections.kafka_partition,
        rejections.kafka_offset,
        rejections.loaded_at
    from rejections
)

select * from final
{%- endif %}
