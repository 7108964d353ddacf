{#-
    Debezium JSON and the formats built on its envelope: Arcion's JSON CDC for Kafka and
    Huawei MRS CDL message_version 2.0. A message is either {schema, payload} (Kafka Connect
    JSON converter with schemas) or the bare payload; both are parsed by one from_json.
-#}

{% macro _debezium_payload_fields() %}
    {#- (name, Spark type) of every payload field the Debezium family uses, MRS CDL 1.0 fields included. -#}
    {{ return([
    ('before', 'map<string, variant>'),
    ('after', 'map<string, variant>'),
    ('source', 'struct<connector: string, name: string, db: string, schema: string, table: string, snapshot: string, ts_ms: bigint, file: string, pos: bigint, row: bigint, lsn: bigint, sequence: string, txId: bigint, gtid: string>'),
    ('op', 'string'),
    ('ts_ms', 'bigint'),
    ('transaction', 'struct<id: string, properties: array<struct<name: string, value: bigint>>>'),
    ('status', 'string'),
    ('ddl', 'string'),
    ('databaseName', 'string'),
    ('message_version', 'string'),
    ('HEARTBEAT_IDENTIFIER', 'string'),
    ('DATA_STORE', 'string'),
    ('SEG_OWNER', 'string'),
    ('TABLE_NAME', 'string'),
    ('TIMESTAMP', 'bigint'),
    ('OPERATION', 'string'),
    ('data', 'map<string, variant>'),
    ('unique', 'map<string, variant>'),
    ]) }}
{% endmacro %}

{% macro _kafka_connect_envelope_schema() -%}
    struct<fields: array<struct<field: string, fields: array<struct<field: string, type: string, name: string, parameters: map<string, string>>>>>>
{%- endmacro %}


{% macro debezium_parse_message(relation_alias) -%}
    {#-
        Parses the landed record in `relation_alias` as one Debezium-style message into struct<schema, payload, <payload
        fields>, _corrupt_record>: the payload fields appear both under `payload` (schema
        envelope) and at the top level (bare payload). _corrupt_record holds the text of a
        record that is not a JSON object.
    -#}
    {%- set payload_ddl = [] -%}
    {%- for name, type in _debezium_payload_fields() -%}
        {%- do payload_ddl.append('`' ~ name ~ '`: ' ~ type) -%}
    {%- endfor -%}
    {{ cdc_parsed_message(
        relation_alias,
        'schema: ' ~ _kafka_connect_envelope_schema() ~ ', payload: struct<' ~ payload_ddl | join(', ') ~ '>, ' ~ payload_ddl | join(', '),
    ) }}
{%- endmacro %}


{% macro debezium_payload(message_expr) -%}
    {#- The payload struct of a parsed message, whether it came in a schema envelope or bare. -#}
    {%- set top_level_fields = [] -%}
    {%- for name, type in _debezium_payload_fields() -%}
        {%- do top_level_fields.append(message_expr ~ '.`' ~ name ~ '` as `' ~ name ~ '`') -%}
    {%- endfor -%}
    coalesce({{ message_expr }}.payload, struct({{ top_level_fields | join(', ') }}))
{%- endmacro %}


{% macro kafka_connect_key(key_fields_expr) -%}
    {#-
        A Kafka record key written by a Kafka Connect JSON converter, given as the key parsed
        into map<string, variant>, as struct<image, field_schemas>: the key's fields and their
        field schemas (null when the key has no schema envelope).
    -#}
    named_struct(
        'image', if(
            map_contains_key({{ key_fields_expr }}, 'payload') and map_contains_key({{ key_fields_expr }}, 'schema'),
            try_variant_get({{ key_fields_expr }}['payload'], '$', 'map<string, variant>'),
            {{ key_fields_expr }}
        ),
        'field_schemas', map_from_entries(
            transform(
                try_variant_get(
                    {{ key_fields_expr }}['schema'],
                    '$.fields',
                    'array<struct<field: string, type: string, name: string, parameters: map<string, string>>>'
                ),
                field_schema -> struct(field_schema.field, field_schema)
            )
        )
    )
{%- endmacro %}


{% macro debezium_classification(payload, record_value, corrupt_record) -%}
    {#-
        What a Debezium-family record is: a change (op c/r/u/d/t), a control record, or
        quarantined with a reason code (seeds/cdc_outcome_reasons.csv explains each code).
    -#}
    case
        when {{ record_value }} is null or trim({{ record_value }}) = 'null'
            then {{ cdc_classification('control', 'tombstone') }}
        when {{ corrupt_record }} is not null
            then {{ cdc_classification('quarantined', 'invalid_json') }}
        when {{ payload }}.op in ('c', 'r', 'u', 'd', 't') and {{ payload }}.source.table is null
            then {{ cdc_classification('quarantined', 'missing_source_table') }}
        when {{ payload }}.op in ('c', 'r', 'u', 'd', 't')
            and coalesce(lower({{ payload }}.source.connector), '') not in ('mysql', 'postgresql')
            then {{ cdc_classification('quarantined', 'unsupported_source_connector') }}
        when {{ payload }}.op in ('c', 'r', 'u', 'd', 't')
            then {{ cdc_classification('change', none) }}
        when {{ payload }}.op = 'm'
            then {{ cdc_classification('control', 'logical_decoding_message') }}
        when {{ payload }}.op is not null
            then {{ cdc_classification('quarantined', 'unknown_operation') }}
        when {{ payload }}.status in ('BEGIN', 'END')
            then {{ cdc_classification('control', 'transaction_boundary') }}
        when {{ payload }}.ddl is not null
            then {{ cdc_classification('control', 'schema_change') }}
        when {{ payload }}.before is null and {{ payload }}.after is null
            and ({{ payload }}.HEARTBEAT_IDENTIFIER is not null or ({{ payload }}.ts_ms is not null and {{ payload }}.source is null))
            then {{ cdc_classification('control', 'heartbeat') }}
        else {{ cdc_classification('quarantined', 'unrecognized_message') }}
    end
{%- endmacro %}


{% macro debezium_record_fields(relation_alias) %}
    {#-
        Canonical field expressions (see cdc_record_columns) for a relation with columns
        `payload` (debezium_payload), `envelope_fields` (schema.fields or null) and
        `kafka_key` (kafka_connect_key). Images stay as the message carries them; their field
        schemas (value schema, else the Kafka key's) go along for the typing. Change sequence
        per source connector:
          mysql       [binlog file number, binlog position, row in event]
          postgresql  [commit LSN from source.sequence (else the LSN), LSN]
    -#}
    {%- set p = relation_alias ~ '.payload' -%}
    {%- set source = p ~ '.source' -%}
    {{ return({
        'source_database': source ~ '.db',
        'source_schema': source ~ '.schema',
        'source_table': source ~ '.table',
        'operation': "case " ~ p ~ ".op when 'c' then 'insert' when 'r' then 'snapshot' when 'u' then 'update' when 'd' then 'delete' when 't' then 'truncate' end",
        'key_image': relation_alias ~ '.kafka_key.image',
        'before_image': p ~ '.before',
        'after_image': p ~ '.after',
        'field_schemas': cdc_kafka_connect_images_field_schemas(
            relation_alias ~ '.envelope_fields', ['after', 'before'], relation_alias ~ '.kafka_key.field_schemas'
        ),
        'change_sequence': _debezium_change_sequence(source),
        'commit_timestamp': cdc_timestamp_from_epoch('nullif(' ~ source ~ '.ts_ms, 0)', 'millis'),
        'transaction_id': 'coalesce(' ~ p ~ '.transaction.id, cast(' ~ source ~ '.txId as string), ' ~ source ~ '.gtid)',
    }) }}
{% endmacro %}


{% macro _debezium_change_sequence(source) -%}
    case lower({{ source }}.connector)
        when 'mysql' then array(
            coalesce(try_cast(regexp_extract({{ source }}.file, '([0-9]+)$', 1) as bigint), 0),
            coalesce({{ source }}.pos, 0),
            coalesce({{ source }}.row, 0)
        )
        when 'postgresql' then array(
            coalesce(
                try_cast(try_element_at(from_json({{ source }}.sequence, 'array<string>'), 1) as bigint),
                {{ source }}.lsn,
                0
            ),
            coalesce({{ source }}.lsn, 0)
        )
    end
{%- endmacro %}
