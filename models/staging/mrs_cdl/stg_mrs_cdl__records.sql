{#- Only the landings with new files are read; a run with none stages nothing and plans no parser. -#}
{%- set landings = cdc_landings_to_read([source('mrs_cdl', 'json_lines'), source('mrs_cdl', 'kafka_records')]) %}
{%- if landings | length == 0 %}
{{ cdc_no_new_records() }}
{%- else %}
with

landed_records as (
    {{ cdc_landed_records(landings) }}
),

change_records as (
    {{ debezium_family_records('landed_records', flavour='mrs_cdl', with_cdl_v1=true) }}
),

final as (
    select * from change_records
)

select * from final
{%- endif %}
