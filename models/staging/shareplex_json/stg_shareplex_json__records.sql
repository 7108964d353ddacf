{#- Only the landings with new files are read; a run with none stages nothing and plans no parser. -#}
{%- set landings = cdc_landings_to_read([source('shareplex_json', 'json_lines'), source('shareplex_json', 'kafka_records')]) %}
{%- if landings | length == 0 %}
{{ cdc_no_new_records() }}
{%- else %}
with

landed_records as (
    {{ cdc_landed_records(landings) }}
),

change_records as (
    {{ shareplex_json_records('landed_records', flavour='shareplex_json') }}
),

final as (
    select * from change_records
)

select * from final
{%- endif %}
