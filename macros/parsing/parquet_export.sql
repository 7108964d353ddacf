{#-
    The hourly Parquet CDC export (../shared/formats/hourly-parquet-cdc-export.md):
    <table>/year=YYYY/month=MM/day=DD/hour=HH/part-*.parquet, every row a full row of the table
    plus

      cdc_operation_type     INSERT, UPDATE, DELETE (any case)
      cdc_change_seq         unique, increasing: the change sequence
      cdc_commit_timestamp   the commit time

    Each file is read with its own schema by the python_udfs helper
    cdc_parquet_export_file_records (one JSON text per row: the three cdc_ columns and `row`,
    the file's other columns), so a column a file does not have is absent from its rows'
    images (the current state keeps its value), never a null; a column the YAML does not
    declare is carried and ignored by the typing (the warning test cdc_columns_declared names
    it). A DELETE row is null except the key: it is a before image, only its key is used.
    The table is the folder above year=, else the file's folder.

    Change sequence: cdc_change_seq as [three 18-digit parts] (a whole number of up to 54
    digits, compared numerically); anything else is quarantined (invalid_change_sequence).
    A file that is not readable Parquet is one quarantined record (invalid_parquet) with
    pyarrow's message; the rows decoded before a broken row group are kept.
-#}

{% macro parquet_export_records(landed_relation, flavour) %}
    {#-
        The staging query of the hourly Parquet export: landed records in (their record_value
        is one row as the python_udfs decoder writes it), canonical change records out
        (cdc_record_columns), one row per Parquet row.
    -#}
    {%- set r = 'classified_records' -%}
    {%- set m = r ~ '.message' -%}
    {%- set fields = {
        'classification': r ~ '.classification',
        'source_database': 'cast(null as string)',
        'source_schema': 'cast(null as string)',
        'source_table': r ~ '.path_table',
        'operation': r ~ '.operation',
        'key_image': 'cast(null as map<string, variant>)',
        'before_image': 'if(' ~ r ~ ".operation = 'delete', " ~ m ~ '.`row`, null)',
        'after_image': 'if(' ~ r ~ ".operation in ('insert', 'update'), " ~ m ~ '.`row`, null)',
        'field_schemas': cdc_plain_field_schemas([m ~ '.`row`']),
        'change_sequence': r ~ '.change_sequence',
        'commit_timestamp': 'try_cast(' ~ m ~ '.cdc_commit_timestamp as timestamp)',
        'transaction_id': 'cast(null as string)',
    } -%}
    with

    parsed_records as (
        select
            landed.*,
            {{ cdc_parsed_message('landed', _parquet_export_row_fields()) }} as message,
            coalesce(
                nullif(regexp_extract(landed.landing_file, '([^/]+)/year=[^/]*/month=[^/]*/day=[^/]*/hour=[^/]*/[^/]*$', 1), ''),
                element_at(split(landed.landing_file, '/'), -2)
            ) as path_table
        from {{ landed_relation }} as landed
    ),

    operations as (
        select
            parsed_records.*,
            {{ parquet_export_operation('parsed_records.message.cdc_operation_type') }} as operation,
            {{ parquet_export_change_sequence('parsed_records.message.cdc_change_seq') }} as change_sequence
        from parsed_records
    ),

    classified_records as (
        select
            operations.*,
            {{ parquet_export_classification('operations.message', 'operations.operation', 'operations.change_sequence') }}
                as classification
        from operations
    )

    {{ cdc_record_columns(fields, flavour, r) }}
{% endmacro %}


{% macro parquet_export_operation(operation_type) -%}
    {#- What a cdc_operation_type does: insert, update or delete; null for any other value. -#}
    case upper(trim({{ operation_type }}))
        when 'INSERT' then 'insert'
        when 'UPDATE' then 'update'
        when 'DELETE' then 'delete'
    end
{%- endmacro %}


{% macro parquet_export_change_sequence(change_seq) -%}
    {#- cdc_change_seq (text of a whole number, up to 54 digits) as three 18-digit parts, compared numerically; null for any other text. -#}
    if(
        {{ change_seq }} rlike '^[0-9]{1,54}$',
        array(
            try_cast(substr(lpad({{ change_seq }}, 54, '0'), 1, 18) as bigint),
            try_cast(substr(lpad({{ change_seq }}, 54, '0'), 19, 18) as bigint),
            try_cast(substr(lpad({{ change_seq }}, 54, '0'), 37, 18) as bigint)
        ),
        null
    )
{%- endmacro %}


{% macro parquet_export_classification(message, operation, change_sequence) -%}
    {#- What one decoded row is: a change, or quarantined with a reason code. -#}
    case
        when {{ message }}.error_kind is not null
            then {{ cdc_classification('quarantined', 'invalid_parquet') }}
        when {{ message }}._corrupt_record is not null or {{ message }}.`row` is null
            then {{ cdc_classification('quarantined', 'unrecognized_message') }}
        when {{ operation }} is null
            then {{ cdc_classification('quarantined', 'unknown_operation') }}
        when {{ change_sequence }} is null
            then {{ cdc_classification('quarantined', 'invalid_change_sequence') }}
        else {{ cdc_classification('change', none) }}
    end
{%- endmacro %}


{% macro _parquet_export_row_fields() -%}
    cdc_operation_type: string, cdc_change_seq: string, cdc_commit_timestamp: string, `row`: map<string, variant>, error_kind: string, error: string
{%- endmacro %}
