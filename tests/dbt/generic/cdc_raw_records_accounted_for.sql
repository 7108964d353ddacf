{% test cdc_raw_records_accounted_for(model, landing_sources, value_format=none) %}
{#-
    Every landed raw record ends in exactly one place: raw records counted in the landing files
    = records of the staging model (change, control or quarantined), and no raw record has two
    outcomes. Checks the files the model loaded in its latest run (var cdc_audit_all_files:
    true checks every file). Returns one row per file that does not add up. value_format: what
    the binary_files landings hold (dts_avro or parquet_export: their decoder splits them).
-#}
{%- set audit_all = var('cdc_audit_all_files', false) -%}
{%- set audited_files = [] -%}
{%- if execute and not audit_all -%}
    {#- the latest run and its files in one statement -#}
    {%- set files_query -%}
        select distinct landing_file from {{ model }} where {{ _cdc_audited_records(model) }}
    {%- endset -%}
    {%- do audited_files.extend(run_query(files_query).columns[0].values()) -%}
{%- endif -%}
{%- set file_filter -%}
    {%- if audit_all %}true
    {%- elif audited_files | length == 0 %}false
    {%- else %}landing_file in ({{ cdc_sql_string_list(audited_files) }})
    {%- endif -%}
{%- endset -%}

with

landed_records as (
    {%- for landing_source in landing_sources %}
    {%- if _cdc_landing_shape(landing_source) == 'json_lines' %}
    select
        landed_files._metadata.file_path as landing_file,
        size(filter(split(landed_files.value, '\r?\n'), line -> line rlike '\\S')) as landed_count
    from {{ landing_source }} as landed_files
    {%- elif _cdc_landing_shape(landing_source) == 'csv_files' %}
    {#- CSV records: a quoted field may hold line breaks #}
    select
        landed_files._metadata.file_path as landing_file,
        size(filter(regexp_extract_all(landed_files.value, {{ _cdc_csv_record_pattern() }}, 0), csv_record -> csv_record rlike '\\S'))
            as landed_count
    from {{ landing_source }} as landed_files
    {%- elif _cdc_landing_shape(landing_source) == 'binary_files' %}
    {#- records with no framing: as many as the decoder splits the file into #}
    select
        landed_files._metadata.file_path as landing_file,
        size({{ cdc_binary_file_decoder(value_format, 'cdc_raw_records_accounted_for on ' ~ model) }}(landed_files.content)) as landed_count
    from {{ landing_source }} as landed_files
    {%- else %}
    select
        landed_rows._metadata.file_path as landing_file,
        count(*) as landed_count
    from {{ landing_source }} as landed_rows
    group by landed_rows._metadata.file_path
    {%- endif %}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
),

audited_landed_records as (
    select landing_file, landed_count
    from landed_records
    where {{ file_filter }}
),

record_outcomes as (
    select
        landing_file,
        raw_record_id,
        count(distinct record_outcome) as outcome_count
    from {{ model }}
    where {{ file_filter }}
    group by landing_file, raw_record_id
),

staged_records as (
    select
        landing_file,
        count(*) as staged_count,
        count_if(outcome_count > 1) as records_with_several_outcomes
    from record_outcomes
    group by landing_file
)

select
    coalesce(audited_landed_records.landing_file, staged_records.landing_file) as landing_file,
    coalesce(audited_landed_records.landed_count, 0) as landed_count,
    coalesce(staged_records.staged_count, 0) as staged_count,
    coalesce(staged_records.records_with_several_outcomes, 0) as records_with_several_outcomes
from audited_landed_records
full outer join staged_records
    on audited_landed_records.landing_file = staged_records.landing_file
where
    coalesce(audited_landed_records.landed_count, 0) != coalesce(staged_records.staged_count, 0)
    or coalesce(staged_records.records_with_several_outcomes, 0) > 0
{% endtest %}
