{#- Only the landings with new files are read; a run with none stages nothing and plans no parser. -#}
{%- set landings = cdc_landings_to_read([source('arcion_internal_csv', 'csv_files')]) %}
{%- if landings | length == 0 %}
{{ cdc_no_new_records() }}
{%- else %}
with

landed_records as (
    {{ cdc_landed_records(landings, value_format='csv') }}
),

change_records as (
    {{ arcion_internal_csv_records('landed_records', flavour='arcion_internal_csv') }}
),

final as (
    select * from change_records
)

select * from final
{%- endif %}
