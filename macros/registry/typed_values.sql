{% macro cdc_typed_value(text_expr, data_type, encoding=none) -%}
    {#-
        Canonical text (see macros/parsing/canonical_values.sql) to the declared Spark type.
        Null when the text does not hold a value of that type. Beyond plain casts it reads
        the encodings a schemaless JSON message may carry: an integer for a date is days
        since the epoch, an integer for a timestamp is epoch milliseconds (or the unit that
        `encoding` names), and a decimal that is not decimal text is Kafka Connect base64
        bytes scaled by the declared scale (`encoding` decimal_text / decimal_base64 forces one).
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
        {%- set scale = modules.re.match('^decimal\\((\\d+),(\\d+)\\)$', data_type).group(2) -%}
        {%- set from_base64 = "try_cast(" ~ cdc_decimal_text_from_bytes("try_to_binary(" ~ text_expr ~ ", 'base64')", scale) ~ " as " ~ data_type ~ ")" -%}
        {%- if encoding == 'decimal_base64' -%}
            {{ from_base64 }}
        {%- elif encoding == 'decimal_text' -%}
            try_cast({{ text_expr }} as {{ data_type }})
        {%- else -%}
            coalesce(try_cast({{ text_expr }} as {{ data_type }}), {{ from_base64 }})
        {%- endif -%}
    {%- else -%}
        try_cast({{ text_expr }} as {{ data_type }})
    {%- endif -%}
{%- endmacro %}


{% macro cdc_value_from_normalized_text(text_expr, data_type) -%}
    {#- The declared type from cdc_normalized_text output (what the row state stores): plain casts. -#}
    {%- if data_type == 'string' -%}
        {{ text_expr }}
    {%- elif data_type == 'binary' -%}
        try_to_binary({{ text_expr }}, 'base64')
    {%- else -%}
        try_cast({{ text_expr }} as {{ data_type }})
    {%- endif -%}
{%- endmacro %}


{% macro cdc_normalized_text(text_expr, data_type, encoding=none) -%}
    {#-
        The value as the row state stores it: the typed value written back as canonical text,
        so equal values compare equal whatever flavour or encoding they arrived in.
    -#}
    {%- set typed = cdc_typed_value(text_expr, data_type, encoding) -%}
    {%- if data_type == 'timestamp' -%}
        {{ cdc_timestamp_text(typed) }}
    {%- elif data_type == 'binary' -%}
        base64({{ typed }})
    {%- elif data_type == 'string' -%}
        {{ typed }}
    {%- else -%}
        cast({{ typed }} as string)
    {%- endif -%}
{%- endmacro %}


{% macro cdc_normalized_text_by_type(text_expr, data_type_expr, encoding_expr, target_tables) -%}
    {#-
        cdc_normalized_text where the declared type is itself an expression (one SQL pass over
        the events of every table): a case over the (type, encoding) pairs the registry uses.
    -#}
    {%- set pairs = [] -%}
    {%- for target_table in target_tables -%}
        {%- for column in target_table.columns -%}
            {%- set pair = column.data_type ~ '|' ~ (column.encoding or '') -%}
            {%- if pair not in pairs -%}
                {%- do pairs.append(pair) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- if pairs | length == 0 -%}
    cast(null as string)
    {%- else -%}
    case
        {%- for pair in pairs | sort %}
        {%- set data_type, encoding = pair.split('|') %}
        when {{ data_type_expr }} = '{{ data_type }}' and {{ encoding_expr }} {{ "= '" ~ encoding ~ "'" if encoding else 'is null' }}
            then {{ cdc_normalized_text(text_expr, data_type, encoding or none) }}
        {%- endfor %}
    end
    {%- endif -%}
{%- endmacro %}
