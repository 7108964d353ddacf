{% macro debezium_family_records(landed_relation, flavour, with_cdl_v1=false) %}
    {#-
        The staging query of a Debezium-family flavour (Debezium JSON, Arcion JSON CDC for
        Kafka, MRS CDL): landed raw records in, canonical change records out
        (cdc_record_columns). One from_json per message whatever its version or envelope.
        with_cdl_v1: also read MRS CDL message_version 1.0 payloads.
    -#}
    {%- set cdl_fields = mrs_cdl_v1_record_fields('classified_records') -%}
    {%- set debezium_fields = debezium_record_fields('classified_records') -%}
    {%- set fields = {'classification': 'classified_records.classification'} -%}
    {%- for name in cdc_record_field_names() if name != 'classification' -%}
        {%- if with_cdl_v1 -%}
            {%- do fields.update({name: 'if(classified_records.is_cdl_v1, ' ~ cdl_fields[name] ~ ', ' ~ debezium_fields[name] ~ ')'}) -%}
        {%- else -%}
            {%- do fields.update({name: debezium_fields[name]}) -%}
        {%- endif -%}
    {%- endfor -%}
    with

    parsed_records as (
        select
            landed.*,
            {{ debezium_parse_message('landed') }} as message,
            from_json({{ cdc_readable_value('landed', 'record_key') }}, 'map<string, variant>') as key_fields
        from {{ landed_relation }} as landed
    ),

    messages as (
        select
            parsed_records.*,
            {{ debezium_payload('parsed_records.message') }} as payload,
            parsed_records.message.schema.fields as envelope_fields,
            {{ kafka_connect_key('parsed_records.key_fields') }} as kafka_key
        from parsed_records
    ),

    classified_records as (
        select
            messages.*,
            {%- if with_cdl_v1 %}
            {{ mrs_cdl_is_v1('messages.payload') }} as is_cdl_v1,
            if(
                {{ mrs_cdl_is_v1('messages.payload') }},
                {{ mrs_cdl_v1_classification('messages.payload', 'messages.record_value', 'messages.message._corrupt_record') }},
                {{ debezium_classification('messages.payload', 'messages.record_value', 'messages.message._corrupt_record') }}
            ) as classification
            {%- else %}
            {{ debezium_classification('messages.payload', 'messages.record_value', 'messages.message._corrupt_record') }} as classification
            {%- endif %}
        from messages
    )

    {{ cdc_record_columns(fields, flavour, 'classified_records') }}
{% endmacro %}
