{% macro spark__list_relations_without_caching(relation) %}
    {#-
        What exists in a schema, for dbt's relation cache at the start of every invocation: the
        names from `show tables` and `show views` (the metastore's lists) instead of dbt-spark's
        `show table extended`, which reads every table's metadata and schema first. The rows
        have the shape dbt-spark reads: schema, name, temporary, information ('Type: VIEW' or
        'Type: TABLE'; no provider: the project writes Parquet only). `dbt docs generate` keeps
        dbt-spark's listing: its catalog reads the columns from that information.
    -#}
    {%- if flags.WHICH == 'generate' -%}
        {% call statement('list_relations_without_caching', fetch_result=True) -%}
            show table extended in {{ relation.schema }} like '*'
        {%- endcall %}
        {{ return(load_result('list_relations_without_caching').table) }}
    {%- endif -%}
    {%- set view_names = [] -%}
    {%- for view in run_query('show views in ' ~ relation.schema) if not view[2] -%}
        {%- do view_names.append(view[1]) -%}
    {%- endfor -%}
    {%- set relations = [] -%}
    {%- for table in run_query('show tables in ' ~ relation.schema) if not table[2] -%}
        {%- do relations.append([table[0], table[1], false, 'Type: VIEW' if table[1] in view_names else 'Type: TABLE']) -%}
    {%- endfor -%}
    {{ return(relations) }}
{% endmacro %}
