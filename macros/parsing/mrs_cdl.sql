{#-
    Huawei MRS CDL JSON, message_version 1.0. The payload names the table with SEG_OWNER and
    TABLE_NAME, carries the after image in `data`, the key in `unique`, and the log position
    in transaction.properties (lsn, txId). It shares the Kafka Connect schema envelope with
    Debezium, so it is parsed by debezium_parse_message; message_version 2.0 is Debezium JSON.
-#}

{% macro mrs_cdl_is_v1(payload) -%}
    coalesce({{ payload }}.message_version = '1.0' or ({{ payload }}.OPERATION is not null and {{ payload }}.op is null), false)
{%- endmacro %}


{% macro mrs_cdl_v1_classification(payload, record_value, corrupt_record) -%}
    case
        when {{ record_value }} is null or trim({{ record_value }}) = 'null'
            then {{ cdc_classification('control', 'tombstone') }}
        when {{ corrupt_record }} is not null
            then {{ cdc_classification('quarantined', 'invalid_json') }}
        when upper({{ payload }}.OPERATION) in ('INSERT', 'UPDATE', 'DELETE') and {{ payload }}.TABLE_NAME is null
            then {{ cdc_classification('quarantined', 'missing_source_table') }}
        when upper({{ payload }}.OPERATION) in ('INSERT', 'UPDATE', 'DELETE')
            then {{ cdc_classification('change', none) }}
        when {{ payload }}.data is null and {{ payload }}.before is null and {{ payload }}.HEARTBEAT_IDENTIFIER is not null
            then {{ cdc_classification('control', 'heartbeat') }}
        when {{ payload }}.OPERATION is not null
            then {{ cdc_classification('quarantined', 'unknown_operation') }}
        else {{ cdc_classification('quarantined', 'unrecognized_message') }}
    end
{%- endmacro %}


{% macro mrs_cdl_v1_record_fields(relation_alias) %}
    {#-
        Canonical field expressions for CDL 1.0 (columns as for debezium_record_fields). The key
        image is `unique`, else the Kafka record's key (as for Debezium).
        Change sequence: [LSN, LSN], the shape of Debezium's Postgres sequence, so that one
        table fed by CDL 1.0 and 2.0 messages orders consistently.
    -#}
    {%- set p = relation_alias ~ '.payload' -%}
    {%- set lsn = "try_element_at(filter(" ~ p ~ ".transaction.properties, property -> lower(property.name) = 'lsn'), 1).value" -%}
    {%- set tx_id = "try_element_at(filter(" ~ p ~ ".transaction.properties, property -> lower(property.name) = 'txid'), 1).value" -%}
    {{ return({
        'source_database': 'cast(null as string)',
        'source_schema': p ~ '.SEG_OWNER',
        'source_table': p ~ '.TABLE_NAME',
        'operation': 'lower(' ~ p ~ '.OPERATION)',
        'key_image': 'coalesce(' ~ p ~ '.unique, ' ~ relation_alias ~ '.kafka_key.image)',
        'before_image': p ~ '.before',
        'after_image': p ~ '.data',
        'field_schemas': cdc_kafka_connect_images_field_schemas(
            relation_alias ~ '.envelope_fields', ['data', 'before', 'unique']
        ),
        'change_sequence': 'array(coalesce(' ~ lsn ~ ', 0), coalesce(' ~ lsn ~ ', 0))',
        'commit_timestamp': cdc_timestamp_from_epoch(p ~ '.`TIMESTAMP`', 'millis'),
        'transaction_id': 'cast(' ~ tx_id ~ ' as string)',
    }) }}
{% endmacro %}
