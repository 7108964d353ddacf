{#-
    Every staged change that no current-state table can apply: its source table is not in the
    registry (unknown_table), or the change has no value for a key column (missing_key), or a
    value does not type as its column is declared (uncastable_value). Each current-state table
    logs the rejections of its own typing, as it types its new changes, in
    <model>__cdc_rejections (see macros/materializations/cdc_current_state.sql): the changes are
    typed once per run, and a change is applied there or logged here. The changes of source
    tables nobody declared are read from staging (their partitions only).
-#}

{%- set registered_names = cdc_target_tables() | map(attribute='source_table') | unique | list -%}
{%- set unregistered_where -%}
(source_table_partition is null
{%- if registered_names %} or source_table_partition not in (
{%- for name in registered_names %}{{ cdc_sql_string(name) }}{{ ', ' if not loop.last }}{% endfor -%}
){% endif %})
{%- endset %}

with

unregistered_changes as (
    {{ cdc_staged_records('change', where=unregistered_where) | indent(4) }}
),

{% for relation in cdc_rejections_relations() %}
rejections_of_table_{{ loop.index }} as (
    select * from {{ relation }}
),

{% endfor -%}
unregistered_rejections as (
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
        to_json(
            named_struct(
                'operation', unregistered_changes.operation,
                'key', unregistered_changes.key_image,
                'before', unregistered_changes.before_image,
                'after', unregistered_changes.after_image
            )
        ) as rejected_change,
        unregistered_changes.landing_file,
        unregistered_changes.landing_position,
        unregistered_changes.kafka_topic,
        unregistered_changes.kafka_partition,
        unregistered_changes.kafka_offset,
        unregistered_changes.loaded_at
    from unregistered_changes
),

final as (
    select * from unregistered_rejections
    {%- for relation in cdc_rejections_relations() %}
    union all
    select
        rejections_of_table_{{ loop.index }}.raw_record_id,
        rejections_of_table_{{ loop.index }}.row_index,
        rejections_of_table_{{ loop.index }}.flavour,
        rejections_of_table_{{ loop.index }}.source_database,
        rejections_of_table_{{ loop.index }}.source_schema,
        rejections_of_table_{{ loop.index }}.source_table,
        rejections_of_table_{{ loop.index }}.operation,
        rejections_of_table_{{ loop.index }}.target_table,
        rejections_of_table_{{ loop.index }}.rejection_reason,
        rejections_of_table_{{ loop.index }}.rejection_detail,
        rejections_of_table_{{ loop.index }}.rejected_change,
        rejections_of_table_{{ loop.index }}.landing_file,
        rejections_of_table_{{ loop.index }}.landing_position,
        rejections_of_table_{{ loop.index }}.kafka_topic,
        rejections_of_table_{{ loop.index }}.kafka_partition,
        rejections_of_table_{{ loop.index }}.kafka_offset,
        rejections_of_table_{{ loop.index }}.loaded_at
    from rejections_of_table_{{ loop.index }}
    {%- endfor %}
)

select * from final
