{#- A run with no new landed file stages nothing and plans no parser. -#}
{%- if not cdc_has_new_landed_files([source('mrs_cdl', 'json_lines'), source('mrs_cdl', 'kafka_records')]) %}
{{ cdc_no_new_records() }}
{%- else %}
with

landed_json_lines as (
    {{ landed_json_lines(source('mrs_cdl', 'json_lines')) }}
),

landed_kafka_records as (
    {{ landed_kafka_records(source('mrs_cdl', 'kafka_records')) }}
),

landed_records as (
    select * from landed_json_lines
    union all
    select * from landed_kafka_records
),

change_records as (
    {{ debezium_family_records('landed_records', flavour='mrs_cdl', with_cdl_v1=true) }}
),

final as (
    select * from change_records
)

select * from final
{%- endif %}
