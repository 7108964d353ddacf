{#- A run with no new landed file stages nothing and plans no parser. -#}
{%- if not cdc_has_new_landed_files([source('debezium', 'json_lines'), source('debezium', 'kafka_records')]) %}
{{ cdc_no_new_records() }}
{%- else %}
with

landed_json_lines as (
    {{ landed_json_lines(source('debezium', 'json_lines')) }}
),

landed_kafka_records as (
    {{ landed_kafka_records(source('debezium', 'kafka_records')) }}
),

landed_records as (
    select * from landed_json_lines
    union all
    select * from landed_kafka_records
),

change_records as (
    {{ debezium_family_records('landed_records', flavour='debezium') }}
),

final as (
    select * from change_records
)

select * from final
{%- endif %}
