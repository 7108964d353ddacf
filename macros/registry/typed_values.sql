{% macro cdc_typed_value(text_expr, data_type, encoding=none) -%}
    {#-
        Canonical text (see macros/parsing/canonical_values.sql) to the declared Spark type.
        Null when the text does not hold a value of that type. Beyond plain casts it reads
        the encodings a schemaless JSON message may carry: an integer for a date is days
        since the epoch, an integer for a timestamp is epoch milliseconds (or the unit that
        `encoding` names). Encoded decimals reach it as decimal text (cdc_value_decoding).
    -#}
    {%- set data_type = data_type | lower -%}
    {%- if data_type == 'string' -%}
        {{ text_expr }}
    {%- elif data_type == 'binary' -%}
        try_to_binary({{ text_expr }}, 'base64')
    {%- elif data_type == 'date' -%}
        case
            when {{ text_expr }} rlike '^-?[0-9]+$' then try_cast(date_from_unix_date(try_cast({{ text_expr }} as int)) as date)
            else try_cast({{ text_expr }} as date)
        end
    {%- elif data_type == 'timestamp' -%}
        {%- set epoch_functions = {
            'epoch_seconds': 'timestamp_seconds',
            'epoch_millis': 'timestamp_millis',
            'epoch_micros': 'timestamp_micros',
        } -%}
        case
            when {{ text_expr }} rlike '^-?[0-9]+$' then
            {%- if encoding == 'epoch_nanos' %}
                timestamp_micros(div(try_cast({{ text_expr }} as bigint), 1000))
            {%- else %}
                {{ epoch_functions.get(encoding or 'epoch_millis') }}(try_cast({{ text_expr }} as bigint))
            {%- endif %}
            else try_cast({{ text_expr }} as timestamp)
        end
    {%- elif data_type.startswith('decimal') -%}
        {#- Encoded decimals (bytes, base64) are decoded to text before: cdc_value_decoding. -#}
        try_cast({{ text_expr }} as {{ data_type }})
    {%- else -%}
        try_cast({{ text_expr }} as {{ data_type }})
    {%- endif -%}
{%- endmacro %}
