{#- Only the landings with new files are read; a run with none stages nothing and plans no parser. -#}
{%- set landings = cdc_landings_to_read([source('arcion_kafka', 'json_lines'), source('arcion_kafka', 'kafka_records')]) %}
{%- if landings | length == 0 %}
{{ cdc_no_new_records() }}
{%- else %}
with

landed_records as (
    {{ cdc_landed_records(landings) }}
),

change_records as (
    {{ debezium_family_records('landed_records', flavour='arcion_kafka') }}
),

final as (
    select * from change_records
)

select * from final
{%- endif %}
