{#- Only the landings with new files are read; a run with none stages nothing and plans no parser. -#}
{%- set landings = cdc_landings_to_read([source('debezium', 'json_lines'), source('debezium', 'kafka_records')]) %}
{%- if landings | length == 0 %}
{{ cdc_no_new_records() }}
{%- else %}
with

landed_records as (
    {{ cdc_landed_records(landings) }}
),

change_records as (
    {{ debezium_family_records('landed_records', flavour='debezium') }}
),

final as (
    select * from change_records
)

select * from final
{%- endif %}
