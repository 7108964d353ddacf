{#- Only the landings with new files are read; a run with none stages nothing and plans no parser. -#}
{%- set landings = cdc_landings_to_read([source('canal_json', 'json_lines'), source('canal_json', 'kafka_records')]) %}
{%- if landings | length == 0 %}
{{ cdc_no_new_records() }}
{%- else %}
with

landed_records as (
    {{ cdc_landed_records(landings) }}
),

change_records as (
    {{ canal_json_records('landed_records', flavour='canal_json', dts_landings=cdc_canal_dts_landings(landings)) }}
),

final as (
    select * from change_records
)

select * from final
{%- endif %}
