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
        {%- set units = {'epoch_seconds': 'seconds', 'epoch_millis': 'millis', 'epoch_micros': 'micros', 'epoch_nanos': 'nanos'} -%}
        case
            when {{ text_expr }} rlike '^-?[0-9]+$'
                then {{ cdc_timestamp_from_epoch('try_cast(' ~ text_expr ~ ' as bigint)', units.get(encoding or 'epoch_millis')) }}
            else try_cast({{ text_expr }} as timestamp)
        end
    {%- elif data_type.startswith('decimal') -%}
        {#- Encoded decimals (bytes, base64) are decoded to text before: cdc_value_decoding.
            More fraction digits than the declared scale (other than trailing zeros) would be
            rounded by the cast: such a value does not type (uncastable_value), nothing is altered. -#}
        {%- set scale = (data_type.split(',')[1].rstrip(')') | trim) if ',' in data_type else '0' -%}
        if(
            length(regexp_extract({{ text_expr }}, '\\.([0-9]*?)0*$', 1)) > {{ scale }},
            null,
            try_cast({{ text_expr }} as {{ data_type }})
        )
    {%- else -%}
        try_cast({{ text_expr }} as {{ data_type }})
    {%- endif -%}
{%- endmacro %}
