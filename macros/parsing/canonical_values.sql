{#-
    Canonical text: how every flavour writes a column value into the change event's
    before/after/key images (map<string, string>), so that one typed cast per declared
    column type (cdc_typed_value) serves all flavours.

      number        plain decimal text ('12.5', '-3', '1.2E32')
      string        the string itself
      boolean       'true' / 'false'
      date          'yyyy-MM-dd'
      timestamp     ISO 8601 in UTC with offset ('2023-03-23T14:30:05.123456Z')
      time of day   'HH:mm:ss.SSSSSS' (Spark has no TIME type: declare such columns as string)
      bytes         base64
      struct/array  JSON text
      SQL null      the column is present with a null value; an absent column has no map key
-#}

{% macro cdc_timestamp_text(timestamp_expr) -%}
    date_format({{ timestamp_expr }}, "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX")
{%- endmacro %}


{% macro cdc_time_of_day_text(micros_expr) -%}
    {#- Microseconds after midnight to 'HH:mm:ss.SSSSSS', independent of the session time zone. -#}
    concat_ws(
        ':',
        lpad(cast(div({{ micros_expr }}, 3600000000) as string), 2, '0'),
        lpad(cast(div(pmod({{ micros_expr }}, 3600000000), 60000000) as string), 2, '0'),
        concat(
            lpad(cast(div(pmod({{ micros_expr }}, 60000000), 1000000) as string), 2, '0'),
            '.',
            lpad(cast(pmod({{ micros_expr }}, 1000000) as string), 6, '0')
        )
    )
{%- endmacro %}


{% macro cdc_decimal_text_from_bytes(bytes_expr, scale_expr) -%}
    {#-
        Exact decimal text of a big-endian two's-complement unscaled integer (Kafka Connect
        Decimal, Debezium VariableScaleDecimal) and its scale. Up to 38 digits; beyond that,
        or for bytes that are not bytes, the result is null. The inputs are bound once
        (a one-element transform) so that each is evaluated once.
    -#}
    try_element_at(
        transform(
            array(named_struct('bytes', {{ bytes_expr }}, 'scale', {{ scale_expr }})),
            encoded -> try_element_at(
                transform(
                    array(named_struct('unscaled', {{ _cdc_unscaled_integer_from_bytes('encoded.bytes') }}, 'scale', encoded.scale)),
                    decoded -> {{ _cdc_insert_decimal_point('decoded.unscaled', 'decoded.scale') }}
                ),
                1
            )
        ),
        1
    )
{%- endmacro %}


{% macro _cdc_unscaled_integer_from_bytes(bytes_expr) -%}
    {#- Horner's rule over the bytes, the first one signed: that is two's complement. -#}
    if(
        length({{ bytes_expr }}) > 0,
        aggregate(
            transform(
                if(length({{ bytes_expr }}) > 1, sequence(2, length({{ bytes_expr }})), array()),
                byte_index -> cast(conv(substr(hex({{ bytes_expr }}), 2 * byte_index - 1, 2), 16, 10) as int)
            ),
            cast(
                cast(conv(substr(hex({{ bytes_expr }}), 1, 2), 16, 10) as int)
                - if(cast(conv(substr(hex({{ bytes_expr }}), 1, 2), 16, 10) as int) >= 128, 256, 0)
                as decimal(38, 0)
            ),
            (unscaled, byte_value) -> cast(try_add(try_multiply(unscaled, 256), byte_value) as decimal(38, 0))
        ),
        null
    )
{%- endmacro %}


{% macro _cdc_insert_decimal_point(unscaled_expr, scale_expr) -%}
    {#- Places the decimal point `scale` digits from the right of an exact integer (a cheap expression). -#}
    try_element_at(
        transform(
            array(named_struct(
                'sign', if({{ unscaled_expr }} < 0, '-', ''),
                'digits', lpad(
                    cast(abs({{ unscaled_expr }}) as string),
                    greatest(length(cast(abs({{ unscaled_expr }}) as string)), greatest({{ scale_expr }}, 0) + 1),
                    '0'
                ),
                'scale', greatest({{ scale_expr }}, 0)
            )),
            parts -> if(
                parts.scale = 0,
                concat(parts.sign, parts.digits),
                concat(
                    parts.sign,
                    substr(parts.digits, 1, length(parts.digits) - parts.scale),
                    '.',
                    substr(parts.digits, length(parts.digits) - parts.scale + 1)
                )
            )
        ),
        1
    )
{%- endmacro %}


{% macro cdc_json_value_text(variant_expr) -%}
    {#- Canonical text of a JSON value whose meaning is not known from a schema: by its JSON type. -#}
    case
        when {{ variant_expr }} is null or is_variant_null({{ variant_expr }}) then null
        when schema_of_variant({{ variant_expr }}) = 'STRING' then variant_get({{ variant_expr }}, '$', 'string')
        else to_json({{ variant_expr }})
    end
{%- endmacro %}


{% macro cdc_kafka_connect_value_text(variant_expr, field_schema_expr) -%}
    {#-
        Canonical text of one JSON value written by a Kafka Connect JSON converter (Debezium,
        MRS CDL, Arcion), decoded with its field schema struct<type, name, parameters> when
        the message carries one. A value that does not decode as its schema says is kept as
        its raw text, so that the declared-type check quarantines it instead of a silent null.
    -#}
    case
        when {{ variant_expr }} is null or is_variant_null({{ variant_expr }}) then null
        else coalesce(
            {{ _cdc_decode_kafka_connect_logical_value(variant_expr, field_schema_expr) }},
            {{ cdc_json_value_text(variant_expr) }}
        )
    end
{%- endmacro %}


{% macro _cdc_decode_kafka_connect_logical_value(v, field) -%}
    case
        when {{ field }}.name in ('io.debezium.time.Date', 'org.apache.kafka.connect.data.Date')
            then cast(date_from_unix_date(try_variant_get({{ v }}, '$', 'int')) as string)
        when {{ field }}.name in ('io.debezium.time.Timestamp', 'org.apache.kafka.connect.data.Timestamp')
            then {{ cdc_timestamp_text("timestamp_millis(try_variant_get(" ~ v ~ ", '$', 'bigint'))") }}
        when {{ field }}.name = 'io.debezium.time.MicroTimestamp'
            then {{ cdc_timestamp_text("timestamp_micros(try_variant_get(" ~ v ~ ", '$', 'bigint'))") }}
        when {{ field }}.name = 'io.debezium.time.NanoTimestamp'
            then {{ cdc_timestamp_text("timestamp_micros(div(try_variant_get(" ~ v ~ ", '$', 'bigint'), 1000))") }}
        when {{ field }}.name = 'io.debezium.time.ZonedTimestamp'
            then {{ cdc_timestamp_text("try_cast(try_variant_get(" ~ v ~ ", '$', 'string') as timestamp)") }}
        when {{ field }}.name in ('io.debezium.time.Time', 'org.apache.kafka.connect.data.Time')
            then {{ cdc_time_of_day_text("try_variant_get(" ~ v ~ ", '$', 'bigint') * 1000") }}
        when {{ field }}.name = 'io.debezium.time.MicroTime'
            then {{ cdc_time_of_day_text("try_variant_get(" ~ v ~ ", '$', 'bigint')") }}
        when {{ field }}.name = 'io.debezium.time.NanoTime'
            then {{ cdc_time_of_day_text("div(try_variant_get(" ~ v ~ ", '$', 'bigint'), 1000)") }}
        when {{ field }}.name = 'org.apache.kafka.connect.data.Decimal' and schema_of_variant({{ v }}) = 'STRING'
            then {{ cdc_decimal_text_from_bytes(
                "try_to_binary(variant_get(" ~ v ~ ", '$', 'string'), 'base64')",
                "try_cast(" ~ field ~ ".parameters['scale'] as int)"
            ) }}
        when {{ field }}.name = 'io.debezium.data.VariableScaleDecimal'
            or (
                {{ field }}.name is null
                and try_variant_get({{ v }}, '$.scale', 'int') is not null
                and try_variant_get({{ v }}, '$.value', 'string') is not null
            )
            then {{ cdc_decimal_text_from_bytes(
                "try_to_binary(try_variant_get(" ~ v ~ ", '$.value', 'string'), 'base64')",
                "try_variant_get(" ~ v ~ ", '$.scale', 'int')"
            ) }}
    end
{%- endmacro %}


{% macro cdc_kafka_connect_image(image_expr, field_schemas_expr, unavailable_value=none) -%}
    {#-
        Canonical image map<string, string> of a Kafka Connect JSON struct parsed as
        map<string, variant>, decoded with the struct's field schemas (a map from field name
        to struct<field, type, name, parameters>; null when the message has no schema).
        Columns holding `unavailable_value` (Debezium's placeholder for an unchanged Postgres
        TOAST value, base64-encoded for bytea) are left out: absent means "unchanged".
    -#}
    transform_values(
        {% if unavailable_value -%}
        map_filter(
            {{ image_expr }},
            (column_name, column_value) -> coalesce(
                schema_of_variant(column_value) != 'STRING'
                or variant_get(column_value, '$', 'string') not in (
                    '{{ unavailable_value }}', base64(cast('{{ unavailable_value }}' as binary))
                ),
                true
            )
        ),
        {%- else -%}
        {{ image_expr }},
        {%- endif %}
        (column_name, column_value) -> {{ cdc_kafka_connect_value_text(
            'column_value', 'try_element_at(' ~ field_schemas_expr ~ ', column_name)'
        ) }}
    )
{%- endmacro %}


{% macro cdc_kafka_connect_field_schemas(envelope_fields_expr, struct_field_name_expr) -%}
    {#-
        From a Kafka Connect envelope schema (`schema.fields`), the field schemas of the
        struct field named `struct_field_name_expr` (e.g. 'after'), as a map from field name
        to struct<field, type, name, parameters>. Null when the message carries no schema.
    -#}
    map_from_entries(
        transform(
            try_element_at(
                filter({{ envelope_fields_expr }}, envelope_field -> envelope_field.field = {{ struct_field_name_expr }}),
                1
            ).fields,
            field_schema -> struct(field_schema.field, field_schema)
        )
    )
{%- endmacro %}
