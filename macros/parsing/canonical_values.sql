{#-
    Canonical text: how a column value is read before it is typed to its declared column
    (cdc_typed_value). Staging keeps each image as the message carries it (map<string, variant>,
    exact numbers) and the per-table typing (macros/typing/typed_changes.sql) turns the values
    of the declared columns into canonical text, then into their declared types:

      number        plain decimal text ('12.5', '-3', '1.2E32'), exact
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


{% macro cdc_timestamp_from_epoch(number_expr, unit) -%}
    {#-
        A timestamp from a number of `unit`s (seconds, millis, micros, nanos) since the epoch;
        null outside the years 0001 to 9999, which Spark cannot hold: a range check before the
        conversion, so that one value at the edge of a long never fails the query (ANSI mode
        or not). Renders text (no return): it is called inside other macros.
    -#}
    {%- set limits = {
        'seconds': ('-62135596800', '253402300799'),
        'millis': ('-62135596800000', '253402300799999'),
        'micros': ('-62135596800000000', '253402300799999999'),
    } -%}
    {%- if unit not in ['seconds', 'millis', 'micros', 'nanos'] -%}
        {{ exceptions.raise_compiler_error(
            "cdc_timestamp_from_epoch: unit is '" ~ unit ~ "', expected one of seconds, millis, micros, nanos"
        ) }}
    {%- endif -%}
    {%- if unit == 'nanos' -%}
    {#- every long of nanoseconds is within 1677..2262 -#}
    timestamp_micros(div({{ number_expr }}, 1000))
    {%- else -%}
    if(
        {{ number_expr }} between {{ limits[unit][0] }} and {{ limits[unit][1] }},
        timestamp_{{ unit }}({{ number_expr }}),
        null
    )
    {%- endif -%}
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


{% macro cdc_signed_integer_from_hex(hex_expr) -%}
    {#-
        The two's-complement integer written by `hex_expr` (big-endian hex digits, up to 32 =
        16 bytes) as decimal(38, 0); null when empty, longer, or beyond 38 digits. Native
        functions only: the digits are sign-extended to 32, conv reads the high 16 as a signed
        long (a negative base) and the low 16 as an unsigned one, and the number is high times
        2^64 plus low. `hex_expr` should be a column: it is referenced several times.
    -#}
    {%- set extended = 'lpad(' ~ hex_expr ~ ", 32, if(" ~ hex_expr ~ " >= '8', 'F', '0'))" -%}
    case
        when length({{ hex_expr }}) between 1 and 32
            then try_add(
                try_multiply(
                    cast(conv(substr({{ extended }}, 1, 16), 16, -10) as decimal(38, 0)),
                    cast('18446744073709551616' as decimal(38, 0))
                ),
                cast(conv(substr({{ extended }}, 17), 16, 10) as decimal(38, 0))
            )
    end
{%- endmacro %}


{% macro cdc_decimal_text_from_digits(unscaled_expr, digits_expr, scale_expr) -%}
    {#-
        Decimal text from an unscaled integer (for its sign), the digits of its absolute value
        left-padded to at least scale + 1 digits, and the scale (columns: each is referenced
        several times).
    -#}
    concat(
        if({{ unscaled_expr }} < 0, '-', ''),
        if(
            {{ scale_expr }} = 0,
            {{ digits_expr }},
            concat(substr({{ digits_expr }}, 1, length({{ digits_expr }}) - ({{ scale_expr }})), '.', substr({{ digits_expr }}, -({{ scale_expr }})))
        )
    )
{%- endmacro %}


{#-
    How to read one JSON value (variant) bound for a column of `data_type`, given its Kafka
    Connect field schema struct<field, type, name, parameters> (null without a schema). Four
    expressions, evaluated in steps by cdc_typed_changes (each step a column, so that no
    expression is written twice):
      cdc_value_raw_text       the value's own text: strings as they are, numbers exact,
                               objects as JSON
      cdc_value_object_decimal_text
                               decimal text of a {scale, value} object (Debezium
                               VariableScaleDecimal, with or without its schema)
      cdc_value_decimal_bytes  the unscaled bytes when the value is another encoded decimal
                               (Kafka Connect Decimal, or schemaless base64 for a decimal column
                               that is not decimal text); cdc_value_has_decimal_bytes says
                               whether a column can have any
      cdc_value_decimal_scale  their scale
      cdc_value_time_text      canonical text of a Debezium / Kafka Connect date or time encoding
    Only the encodings that can feed `data_type` are written (a typed null otherwise), and of
    those told by a field schema's name, only the names in `schema_names` when it is given
    (the names the column's values carry in the changes being typed, from a probe: a branch
    for a name no value carries can never apply, and every branch costs generated code,
    compiled per run).
-#}

{% macro _cdc_carries(schema_names, names) -%}
    {#- Renders true when a field schema named one of `names` may occur (schema_names none: any may). -#}
    {%- if schema_names is none or (names | select('in', schema_names) | list) -%}true{%- endif -%}
{%- endmacro %}

{% macro cdc_geometry_schema_names() %}
    {#- The field schema names of Debezium geometry values (a struct of wkb and srid). -#}
    {{ return(['io.debezium.data.geometry.Geometry', 'io.debezium.data.geometry.Point', 'io.debezium.data.geometry.Geography']) }}
{% endmacro %}


{% macro cdc_value_raw_text(variant_expr) -%}
    try_variant_get({{ variant_expr }}, '$', 'string')
{%- endmacro %}


{% macro cdc_value_text(variant_expr, field_schema_expr, data_type, schema_names=none) -%}
    {#-
        The value's own text (cdc_value_raw_text), except for bytes that arrive in another
        form than base64 in their natural order, for a binary or string column:
          Canal JSON binary (field schema canal.mysqlType, a binary or blob MySQL type):
            ISO-8859-1 text, one character per byte; a character beyond U+00FF cannot be a
            byte, so the value then has no text and does not type (uncastable_value)
          Debezium io.debezium.data.Bits: base64 of the bits little-endian; MySQL and Paimon
            show them big-endian (b'11111000111' is 00 .. 07 C7), so the bytes are reversed
        Both give base64, the canonical text of bytes. And for a string column:
          Debezium geometry (io.debezium.data.geometry.Geometry, Point, Geography: a struct of
            wkb, base64, and srid): GeoJSON text, as Flink CDC and Paimon show it, through the
            python_udfs helper cdc_geojson_from_wkb; bytes that are not a geometry keep the
            struct's JSON as it came. Only when schema_names (a probe) says the values carry
            a geometry: with none, the struct's JSON.
    -#}
    {%- set raw_text = cdc_value_raw_text(variant_expr) -%}
    {%- set reads_canal_bytes = (data_type | lower) == 'binary' and _cdc_carries(schema_names, ['canal.mysqlType']) -%}
    {%- set reads_bits = (data_type | lower) in ('binary', 'string') and _cdc_carries(schema_names, ['io.debezium.data.Bits']) -%}
    {#- only where a probe saw geometry: Spark sends every row of a Python UDF's input to Python, whatever the CASE around it -#}
    {%- set reads_geometry = (data_type | lower) == 'string' and schema_names is not none
        and _cdc_carries(schema_names, cdc_geometry_schema_names()) -%}
    {%- if reads_canal_bytes or reads_bits or reads_geometry -%}
    case
        {%- if reads_canal_bytes %}
        when {{ field_schema_expr }}.name = 'canal.mysqlType' and lower({{ field_schema_expr }}.type) rlike 'binary|blob'
            then if(
                {{ raw_text }} rlike '^[\\x{00}-\\x{FF}]*$',
                base64(encode({{ raw_text }}, 'ISO-8859-1')),
                null
            )
        {%- endif %}
        {%- if reads_bits %}
        when {{ field_schema_expr }}.name = 'io.debezium.data.Bits'
            then base64(unhex(concat_ws('', reverse(regexp_extract_all(hex(try_to_binary({{ raw_text }}, 'base64')), '(..)', 1)))))
        {%- endif %}
        {%- if reads_geometry %}
        when {{ field_schema_expr }}.name in ({% for name in cdc_geometry_schema_names() %}'{{ name }}'{{ ', ' if not loop.last }}{% endfor %})
            then coalesce(
                {#- cast: through Spark Connect a Python function's text is a `string collate
                    UTF8_BINARY`, which a table would keep as a type of its own -#}
                cast(cdc_geojson_from_wkb(
                    try_to_binary(try_variant_get({{ variant_expr }}, '$.wkb', 'string'), 'base64'),
                    try_variant_get({{ variant_expr }}, '$.srid', 'int')
                ) as string),
                {{ raw_text }}
            )
        {%- endif %}
        else {{ raw_text }}
    end
    {%- else -%}
    {{ raw_text }}
    {%- endif -%}
{%- endmacro %}


{% macro cdc_value_object_decimal_text(variant_expr, field_schema_expr, data_type, schema_names=none) -%}
    {#-
        The decimal text of a value that is a {scale, value} object (Debezium
        VariableScaleDecimal: the unscaled integer as base64 bytes, and its scale), told by its
        field schema or, without one, by the value being an object; null for any other value,
        and for an object that is no such decimal. A typed null when data_type cannot hold a
        decimal, or when schema_names (a probe) says that no value of the column is such an
        object: written for every number and string column, this decoding made a table's
        generated code several times larger, which the JIT compiles worse (the checked log's
        statement on the test bed, fresh JVM: 36.1 and 36.4 s with it, 21.6 and 19.7 s
        without, 2026-11-27). Its steps are one-element arrays, each transformed once, so that
        no step is written twice.
    -#}
    {%- if cdc_type_family(data_type) | trim in ('number', 'string') and cdc_value_may_be_decimal_object(schema_names) | trim == 'true' -%}
    {%- set absolute = 'cast(abs(decimal_value.unscaled) as string)' -%}
    case
        when {{ _cdc_is_variable_scale_decimal(variant_expr, field_schema_expr, schema_names) }}
            then element_at(transform(transform(transform(
                transform(array({{ variant_expr }}), decimal_object -> named_struct(
                    -- a scale Spark cannot hold (a schema may say anything) is null: the value has no decimal text, so it is uncastable
                    'scale', if(
                        try_variant_get(decimal_object, '$.scale', 'int') between 0 and 38,
                        try_variant_get(decimal_object, '$.scale', 'int'),
                        null
                    ),
                    'hex', hex(try_to_binary(try_variant_get(decimal_object, '$.value', 'string'), 'base64'))
                )),
                decimal_value -> named_struct(
                    'scale', decimal_value.scale,
                    'unscaled', {{ cdc_signed_integer_from_hex('decimal_value.hex') | indent(20) }}
                )),
                decimal_value -> named_struct(
                    'scale', decimal_value.scale,
                    'unscaled', decimal_value.unscaled,
                    'digits', concat(repeat('0', decimal_value.scale + 1 - length({{ absolute }})), {{ absolute }})
                )),
                decimal_value -> {{ cdc_decimal_text_from_digits('decimal_value.unscaled', 'decimal_value.digits', 'decimal_value.scale') | indent(16) }}
            ), 1)
    end
    {%- else -%}
    cast(null as string)
    {%- endif -%}
{%- endmacro %}


{% macro cdc_value_has_decimal_bytes(data_type, encoding=none, schema_names=none) -%}
    {#- Renders true when a value of a column of data_type may be encoded decimal bytes (cdc_value_decimal_bytes has a branch for it). -#}
    {%- set declared = (data_type | lower).startswith('decimal(') -%}
    {%- if cdc_type_family(data_type) | trim in ('number', 'string')
        and (_cdc_carries(schema_names, ['org.apache.kafka.connect.data.Decimal']) | trim == 'true' or (declared and encoding != 'decimal_text')) -%}
        true
    {%- endif -%}
{%- endmacro %}


{% macro cdc_value_decimal_bytes(variant_expr, field_schema_expr, data_type, encoding=none, schema_names=none) -%}
    {%- set text = cdc_value_raw_text(variant_expr) -%}
    {%- set field = field_schema_expr -%}
    {%- set declared = (data_type | lower).startswith('decimal(') -%}
    {%- if cdc_value_has_decimal_bytes(data_type, encoding, schema_names) | trim == 'true' -%}
    case
        {%- if cdc_value_may_be_decimal_object(schema_names) | trim == 'true' %}
        {#- a {scale, value} object is cdc_value_object_decimal_text's: never read as bytes here #}
        when {{ _cdc_is_variable_scale_decimal(variant_expr, field, schema_names) }} then null
        {%- endif %}
        {%- if _cdc_carries(schema_names, ['org.apache.kafka.connect.data.Decimal']) %}
        when {{ _cdc_is_connect_decimal(field) }} and schema_of_variant({{ variant_expr }}) = 'STRING'
            then try_to_binary({{ text }}, 'base64')
        {%- endif %}
        {%- if declared and encoding == 'decimal_base64' %}
        when {{ field }} is null then try_to_binary({{ text }}, 'base64')
        {%- elif declared and encoding != 'decimal_text' %}
        when {{ field }} is null and try_cast({{ text }} as {{ data_type }}) is null then try_to_binary({{ text }}, 'base64')
        {%- endif %}
    end
    {%- else -%}
    cast(null as binary)
    {%- endif -%}
{%- endmacro %}


{% macro cdc_value_decimal_scale(variant_expr, field_schema_expr, data_type, schema_names=none) -%}
    {%- set field = field_schema_expr -%}
    {%- set declared_scale = (data_type | lower).split(',')[1].rstrip(')') if (data_type | lower).startswith('decimal(') else none -%}
    {%- set reads_connect_decimal = _cdc_carries(schema_names, ['org.apache.kafka.connect.data.Decimal']) | trim == 'true' -%}
    {%- if cdc_type_family(data_type) | trim in ('number', 'string') and reads_connect_decimal -%}
    case
        when {{ _cdc_is_connect_decimal(field) }} then try_cast({{ field }}.parameters['scale'] as int)
        {%- if declared_scale is not none %}
        else {{ declared_scale }}
        {%- endif %}
    end
    {%- elif declared_scale is not none -%}
    {{ declared_scale }}
    {%- else -%}
    cast(null as int)
    {%- endif -%}
{%- endmacro %}


{% macro cdc_value_time_text(variant_expr, field_schema_expr, data_type, schema_names=none) -%}
    {%- set family = cdc_type_family(data_type) | trim -%}
    {%- set branches = _cdc_logical_time_text(variant_expr, field_schema_expr, family, schema_names) | trim -%}
    {%- if family in ('timestamp', 'date', 'string') and branches -%}
    case
        {{ branches | indent(4) }}
    end
    {%- else -%}
    cast(null as string)
    {%- endif -%}
{%- endmacro %}


{% macro _cdc_is_connect_decimal(field) -%}
    coalesce({{ field }}.name = 'org.apache.kafka.connect.data.Decimal', false)
{%- endmacro %}


{% macro _cdc_is_variable_scale_decimal(v, field, schema_names=none) -%}
    {#- Whether the value may be a {scale, value} decimal object: told by its field schema, or an object without one. Render it only where cdc_value_may_be_decimal_object says so. -#}
    (
        {%- if _cdc_carries(schema_names, ['io.debezium.data.VariableScaleDecimal']) -%}
        {{ field }}.name = 'io.debezium.data.VariableScaleDecimal'{{ ' or ' if _cdc_carries(schema_names, [cdc_json_object_name()]) }}
        {%- endif -%}
        {%- if _cdc_carries(schema_names, [cdc_json_object_name()]) -%}
        ({{ field }} is null and startswith({{ cdc_value_raw_text(v) }}, '{'))
        {%- endif -%}
    )
{%- endmacro %}


{% macro cdc_value_may_be_decimal_object(schema_names=none) -%}
    {#- Renders true when a column's values may be {scale, value} decimal objects: schema_names (a probe) names VariableScaleDecimal or a JSON object value (none: any may). -#}
    {%- if _cdc_carries(schema_names, ['io.debezium.data.VariableScaleDecimal', cdc_json_object_name()]) -%}true{%- endif -%}
{%- endmacro %}


{% macro cdc_json_object_name() -%}
    {#- The name that cdc_schema_names_seen gives a column with a value that is a JSON object (staging's object_valued_columns), beside the field schema names. -#}
    {{- 'json object' -}}
{%- endmacro %}


{% macro cdc_type_family(data_type) -%}
    {#- Renders (no return: it is called inside other macros) number, string, timestamp, date or other. -#}
    {%- set data_type = data_type | lower -%}
    {%- if data_type in ('tinyint', 'smallint', 'int', 'bigint', 'float', 'double') or data_type.startswith('decimal') -%}
        number
    {%- elif data_type in ('string', 'timestamp', 'date') -%}
        {{ data_type }}
    {%- else -%}
        other
    {%- endif -%}
{%- endmacro %}


{% macro _cdc_logical_time_text(v, field, family, schema_names=none) -%}
    {#- The WHEN branches of cdc_value_time_text for a column of type `family`: none may remain when schema_names rules them all out. -#}
    {%- set epoch = "try_variant_get(" ~ v ~ ", '$', 'bigint')" -%}
    {%- set decoders = [
        (['io.debezium.time.Date', 'org.apache.kafka.connect.data.Date'], ('timestamp', 'date', 'string'),
            "cast(date_from_unix_date(try_variant_get(" ~ v ~ ", '$', 'int')) as string)"),
        (['io.debezium.time.Timestamp', 'org.apache.kafka.connect.data.Timestamp'], ('timestamp', 'string'),
            cdc_timestamp_text(cdc_timestamp_from_epoch(epoch, 'millis'))),
        (['io.debezium.time.MicroTimestamp'], ('timestamp', 'string'), cdc_timestamp_text(cdc_timestamp_from_epoch(epoch, 'micros'))),
        (['io.debezium.time.NanoTimestamp'], ('timestamp', 'string'), cdc_timestamp_text(cdc_timestamp_from_epoch(epoch, 'nanos'))),
        (['io.debezium.time.ZonedTimestamp'], ('timestamp', 'string'),
            cdc_timestamp_text("try_cast(try_variant_get(" ~ v ~ ", '$', 'string') as timestamp)")),
        (['io.debezium.time.Time', 'org.apache.kafka.connect.data.Time'], ('string',),
            cdc_time_of_day_text("try_multiply(" ~ epoch ~ ", 1000)")),
        (['io.debezium.time.MicroTime'], ('string',), cdc_time_of_day_text(epoch)),
        (['io.debezium.time.NanoTime'], ('string',), cdc_time_of_day_text("div(" ~ epoch ~ ", 1000)")),
    ] -%}
    {%- for names, families, decoded in decoders if family in families and _cdc_carries(schema_names, names) %}
    when {{ field }}.name {{ "= '" ~ names[0] ~ "'" if names | length == 1 else "in ('" ~ names | join("', '") ~ "')" }}
        then {{ decoded }}
    {%- endfor %}
{%- endmacro %}


{% macro cdc_kafka_connect_images_field_schemas(envelope_fields_expr, image_names, fallback_expr=none) -%}
    {#-
        The field schemas of a change's images: those of the first of `image_names` (struct
        fields of the envelope, e.g. ['after', 'before']) that the envelope schema describes,
        else `fallback_expr` (e.g. the Kafka key's). Null when there is none.
    -#}
    coalesce(
        {%- for image_name in image_names %}
        {{ cdc_kafka_connect_field_schemas(envelope_fields_expr, cdc_sql_string(image_name)) }}{{ ',' if not loop.last or fallback_expr }}
        {%- endfor %}
        {%- if fallback_expr %}
        {{ fallback_expr }}
        {%- endif %}
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
