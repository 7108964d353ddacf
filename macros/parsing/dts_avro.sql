{#-
    Alibaba DTS Avro: the default format of DTS subscriptions and of its Kafka sink, one binary
    Avro `Record` per change (schema: python_udfs/src/cdc_udfs/dts_avro_schema/). Spark SQL
    cannot read Avro here, so the landing readers pass each record through the python_udfs
    helper cdc_dts_avro_record_json (a Kafka value) or cdc_dts_avro_file_records (an SDK file,
    records one after another): they give the record as JSON text with its union branches
    named, and this macro does the rest in SQL, like every other flavour.

      operation INSERT, UPDATE, DELETE                 one change (full row images)
      DDL                                              control record schema_change (the
                                                       statement is in the record's imagesText)
      BEGIN, COMMIT, ROLLBACK, ABORT                   control record transaction_boundary
      HEARTBEAT                                        control record heartbeat
      a Kafka record with no value                     control record tombstone
      CHECKPOINT, COMMAND, FILL, FINISH, CONTROL,
      RDB, NOOP, INIT                                  control record stream_marker
      bytes that are not a Record                      quarantined invalid_avro (the Avro error
                                                       is the record's `error`)
      a value that cannot be decoded                   quarantined undecodable_value

    objectName is `database.table` (MySQL) or `database.schema.table`. Change sequence: [id],
    the record id that rises through the whole stream; sourceTimestamp (seconds) is the commit
    time, sourceTxid the transaction. Images are arrays in the order of `fields`; each value is
    typed to canonical text (macros/parsing/canonical_values.sql) by its union branch:

      Integer, Decimal       its value text (exact; an unsigned BIGINT beyond a long stays text)
      Float                  its value text (repr of the double: NaN and infinities survive)
      Character              its text, decoded with its charset in Python (base64 for binary)
      Timestamp              `timestamp` seconds + `millis` (in fact microseconds), UTC
      DateTime               the parts it has: a date, a time of day, a year, or a date-time
                             (MySQL DATETIME has no zone: read as UTC, as Debezium does)
      TimestampWithTimeZone  the date-time in its zone, as UTC
      BinaryObject           base64; TextObject and TextGeometry: their text
      BinaryGeometry         GeoJSON (WKB or MySQL's SRID + WKB; base64 when neither)
      EmptyObject NULL       present with a null value; EmptyObject NONE: absent (the column
                             keeps its value, as for a partial image); the null branch: null
-#}

{% macro dts_avro_records(landed_relation, flavour) %}
    {#-
        The staging query of DTS Avro: landed records in (their record_value is the JSON text of
        the python_udfs decoder), canonical change records out (cdc_record_columns), one row per
        record.
    -#}
    {%- set r = 'imaged_records' -%}
    {%- set m = r ~ '.message' -%}
    {%- set name_parts = 'split(' ~ m ~ ".objectName, '[.]')" -%}
    {%- set fields = {
        'classification': r ~ '.classification',
        'source_database': 'if(size(' ~ name_parts ~ ') > 1, ' ~ name_parts ~ '[0], null)',
        'source_schema': 'if(size(' ~ name_parts ~ ') > 2, ' ~ name_parts ~ '[1], null)',
        'source_table': 'element_at(' ~ name_parts ~ ', -1)',
        'operation': r ~ '.operation',
        'key_image': 'cast(null as map<string, variant>)',
        'before_image': r ~ '.before_image',
        'after_image': r ~ '.after_image',
        'field_schemas': _dts_avro_field_schemas(m ~ '.fields'),
        'change_sequence': 'array(' ~ m ~ '.id)',
        'commit_timestamp': cdc_timestamp_from_epoch(m ~ '.sourceTimestamp', 'seconds'),
        'transaction_id': 'nullif(' ~ m ~ ".sourceTxid, '')",
    } -%}
    with

    parsed_records as (
        select
            landed.*,
            {{ cdc_parsed_message('landed', _dts_avro_message_fields()) }} as message
        from {{ landed_relation }} as landed
    ),

    operations as (
        select
            parsed_records.*,
            {{ dts_avro_operation('parsed_records.message.operation') }} as operation
        from parsed_records
    ),

    classified_records as (
        select
            operations.*,
            {{ dts_avro_classification('operations.message', 'operations.operation', 'operations.record_value') }} as classification
        from operations
    ),

    {#- the images of changes, built once (a map expression repeated in the columns below would be built per use) #}
    imaged_records as (
        select
            classified_records.*,
            if(
                classified_records.classification.outcome = 'change' and classified_records.operation in ('update', 'delete'),
                {{ _dts_avro_image('classified_records.message.beforeImages', 'classified_records.message.fields') | indent(16) }},
                null
            ) as before_image,
            if(
                classified_records.classification.outcome = 'change' and classified_records.operation in ('insert', 'update'),
                {{ _dts_avro_image('classified_records.message.afterImages', 'classified_records.message.fields') | indent(16) }},
                null
            ) as after_image
        from classified_records
    )

    {{ cdc_record_columns(fields, flavour, r) }}
{% endmacro %}


{% macro dts_avro_operation(operation) -%}
    {#-
        What a Record's operation does: insert, update or delete for a change; the control
        kind (schema_change, transaction_boundary, heartbeat, stream_marker) otherwise; null for
        an operation the schema does not define.
    -#}
    case {{ operation }}
        when 'INSERT' then 'insert'
        when 'UPDATE' then 'update'
        when 'DELETE' then 'delete'
        when 'DDL' then 'schema_change'
        when 'BEGIN' then 'transaction_boundary'
        when 'COMMIT' then 'transaction_boundary'
        when 'ROLLBACK' then 'transaction_boundary'
        when 'ABORT' then 'transaction_boundary'
        when 'HEARTBEAT' then 'heartbeat'
        when 'CHECKPOINT' then 'stream_marker'
        when 'COMMAND' then 'stream_marker'
        when 'FILL' then 'stream_marker'
        when 'FINISH' then 'stream_marker'
        when 'CONTROL' then 'stream_marker'
        when 'RDB' then 'stream_marker'
        when 'NOOP' then 'stream_marker'
        when 'INIT' then 'stream_marker'
    end
{%- endmacro %}


{% macro dts_avro_classification(message, operation, record_value) -%}
    {#-
        What a decoded DTS Avro record is: a change, a control record (a Kafka record with no
        value is a tombstone, as in every Kafka flavour), or quarantined with a reason code.
        `operation` is the expression of dts_avro_operation over the message, `record_value`
        the decoder's JSON text.
    -#}
    {%- set images = [message ~ '.beforeImages', message ~ '.afterImages'] -%}
    case
        when {{ record_value }} is null
            then {{ cdc_classification('control', 'tombstone') }}
        when {{ message }}.error_kind = 'avro'
            then {{ cdc_classification('quarantined', 'invalid_avro') }}
        when {{ message }}.error_kind = 'value'
            then {{ cdc_classification('quarantined', 'undecodable_value') }}
        when {{ message }}._corrupt_record is not null or {{ message }}.operation is null
            then {{ cdc_classification('quarantined', 'unrecognized_message') }}
        when {{ operation }} is null
            then {{ cdc_classification('quarantined', 'unknown_operation') }}
        when {{ operation }} not in ('insert', 'update', 'delete')
            then named_struct('outcome', 'control', 'reason', {{ operation }})
        when {{ message }}.objectName is null
            then {{ cdc_classification('quarantined', 'missing_source_table') }}
        when {{ message }}.id is null
            then {{ cdc_classification('quarantined', 'invalid_change_sequence') }}
        when ({{ operation }} != 'delete' and {{ images[1] }} is null) or ({{ operation }} = 'delete' and {{ images[0] }} is null)
            then {{ cdc_classification('quarantined', 'missing_row_image') }}
        when ({{ images[0] }} is not null and ({{ message }}.fields is null or size({{ images[0] }}) != size({{ message }}.fields)))
            or ({{ images[1] }} is not null and ({{ message }}.fields is null or size({{ images[1] }}) != size({{ message }}.fields)))
            then {{ cdc_classification('quarantined', 'mismatched_image_fields') }}
        when size(array_distinct({{ message }}.fields.name)) != size({{ message }}.fields)
            then {{ cdc_classification('quarantined', 'duplicate_field_name') }}
        else {{ cdc_classification('change', none) }}
    end
{%- endmacro %}


{% macro dts_avro_value_text(value) -%}
    {#-
        The canonical text (macros/parsing/canonical_values.sql) of one decoded image value
        (a struct of _dts_avro_value_fields), by its union branch; null for the null branch
        and for EmptyObject.
    -#}
    {%- set date_time_text = "format_string('%04d-%02d-%02d %02d:%02d:%02d.%06d', "
        ~ value ~ '.year, ' ~ value ~ '.month, ' ~ value ~ '.day, ' ~ value ~ '.hour, '
        ~ value ~ '.minute, ' ~ value ~ '.second, coalesce(' ~ value ~ '.millis, 0))' -%}
    case {{ value }}.branch
        when 'Timestamp'
            then {{ cdc_timestamp_text(cdc_timestamp_from_epoch(
                'try_add(try_multiply(' ~ value ~ '.`timestamp`, 1000000L), ' ~ value ~ '.millis)', 'micros'
            )) }}
        when 'DateTime'
            then case
                when {{ value }}.year is not null and {{ value }}.hour is not null
                    then concat(replace({{ date_time_text }}, ' ', 'T'), 'Z')
                when {{ value }}.year is not null and {{ value }}.month is not null
                    then format_string('%04d-%02d-%02d', {{ value }}.year, {{ value }}.month, {{ value }}.day)
                when {{ value }}.year is not null
                    then cast({{ value }}.year as string)
                when {{ value }}.hour is not null
                    then format_string('%02d:%02d:%02d.%06d', {{ value }}.hour, {{ value }}.minute, {{ value }}.second, coalesce({{ value }}.millis, 0))
            end
        when 'TimestampWithTimeZone'
            then {{ cdc_timestamp_text('to_utc_timestamp(try_cast(' ~ date_time_text ~ ' as timestamp), ' ~ value ~ '.timezone)') }}
        when 'EmptyObject' then null
        else {{ value }}.value
    end
{%- endmacro %}


{% macro _dts_avro_image(images, fields) -%}
    {#-
        A row image (map<string, variant>, canonical text) from an image array and the record's
        fields (same order): EmptyObject NONE values are left out (absent); a null is a JSON
        null, as in the images the JSON flavours parse.
    -#}
    map_from_entries(transform(
        filter(
            transform({{ fields }}, (field, position) -> named_struct('name', field.name, 'value', try_element_at({{ images }}, position + 1))),
            column_value -> coalesce(not (column_value.value.branch = 'EmptyObject' and column_value.value.value = 'NONE'), true)
        ),
        column_value -> struct(column_value.name, coalesce(cast({{ dts_avro_value_text('column_value.value') }} as variant), parse_json('null')))
    ))
{%- endmacro %}


{% macro _dts_avro_field_schemas(fields) -%}
    {#- Each column's DTS data type number, as its field schema (name dts.dataTypeNumber). -#}
    map_from_entries(transform(
        {{ fields }},
        field -> struct(field.name, named_struct(
            'field', field.name,
            'type', cast(field.dataTypeNumber as string),
            'name', 'dts.dataTypeNumber',
            'parameters', cast(null as map<string, string>)
        ))
    ))
{%- endmacro %}


{% macro _dts_avro_value_fields() -%}
    branch: string, value: string, charset: string, precision: int, scale: int, `timestamp`: bigint, millis: int, year: int, month: int, day: int, hour: int, minute: int, second: int, timezone: string
{%- endmacro %}


{% macro _dts_avro_message_fields() -%}
    id: bigint, sourceTimestamp: bigint, sourcePosition: string, sourceTxid: string, sourceType: string, operation: string, objectName: string, fields: array<struct<name: string, dataTypeNumber: int>>, fieldsText: string, beforeImages: array<struct<{{ _dts_avro_value_fields() }}>>, afterImages: array<struct<{{ _dts_avro_value_fields() }}>>, imagesText: string, error_kind: string, error: string
{%- endmacro %}
