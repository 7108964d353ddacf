{#- Only the landings with new files are read; a run with none stages nothing and plans no parser. -#}
{%- set landings = cdc_landings_to_read([source('dts_avro', 'kafka_records'), source('dts_avro', 'binary_files')]) %}
{%- if landings | length == 0 %}
{{ cdc_no_new_records() }}
{%- else %}
{%- do cdc_require_helpers(['cdc_dts_avro_record_json', 'cdc_dts_avro_file_records']) %}
with

landed_records as (
    {{ cdc_landed_records(landings, value_format='dts_avro') }}
),

change_records as (
    {{ dts_avro_records('landed_records', flavour='dts_avro') }}
),

final as (
    select * from change_records
)

select * from final
{%- endif %}
