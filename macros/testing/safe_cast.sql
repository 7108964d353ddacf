{% macro spark__safe_cast(field, type) %}
    {#-
        dbt's safe_cast for Spark, as unit-test fixtures use it, extended to complex types:
        a string cannot be cast to a map, array or struct, so such a fixture value is written
        as JSON and read with from_json, e.g. after_image: '{"id": "7"}'.
    -#}
    {%- set type_text = type | string | lower | trim -%}
    {%- if type_text.startswith('map<') or type_text.startswith('array<') or type_text.startswith('struct<') -%}
        from_json({{ field }}, '{{ type }}')
    {%- else -%}
        cast({{ field }} as {{ type }})
    {%- endif -%}
{% endmacro %}
