{% macro cdc_watermark(relation, column_expr, where=none) %}
    {#-
        The largest value of `column_expr` in `relation` as a SQL timestamp literal, or none
        when the relation is empty. Read once per run and inlined as a literal, so that Spark
        prunes files and row groups instead of joining against the table it writes.
    -#}
    {% if not execute %}
        {{ return(none) }}
    {% endif %}
    {% set query %}
        select cast(max({{ column_expr }}) as string) from {{ relation }} {{ 'where ' ~ where if where }}
    {% endset %}
    {% set value = run_query(query).columns[0].values()[0] %}
    {{ return("timestamp'" ~ value ~ "'" if value is not none else none) }}
{% endmacro %}


{% macro cdc_change_version(relation) -%}
    {#- The version (cdc_change_version_type) of each staged change in `relation`. -#}
    named_struct(
        'sequence', {{ relation }}.change_sequence,
        'arrival_stream', coalesce(
            concat({{ relation }}.kafka_topic, '/', lpad(cast({{ relation }}.kafka_partition as string), 10, '0')),
            {{ relation }}.landing_file
        ),
        'arrival_position', coalesce({{ relation }}.kafka_offset, {{ relation }}.landing_position),
        'row_index', {{ relation }}.row_index
    )
{%- endmacro %}


{% macro cdc_change_version_type() -%}
    {#-
        The total order of changes of one key: the flavour's change sequence, then arrival
        (Kafka topic-partition and offset, or landing file and line), then the row inside a
        multi-row message. Structs compare field by field, arrays element by element.
    -#}
    struct<sequence: array<bigint>, arrival_stream: string, arrival_position: bigint, row_index: int>
{%- endmacro %}
