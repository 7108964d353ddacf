{#- Only the landings with new files are read; a run with none stages nothing and plans no parser. -#}
{%- set landings = cdc_landings_to_read([source('parquet_export', 'binary_files')]) %}
{%- if landings | length == 0 %}
{{ cdc_no_new_records() }}
{%- else %}
{%- do cdc_require_helpers(['cdc_parquet_export_file_records']) %}
with

landed_records as (
    {{ cdc_landed_records(landings, value_format='parquet_export') }}
),

change_records as (
    {{ parquet_export_records('landed_records', flavour='parquet_export') }}
),

final as (
    select * from change_records
)

select * from final
{%- endif %}
