{% macro cdc_load_reference_data() %}
    {#-
        on-run-start: loads each seed of this project (the reference data the logs join,
        seeds/*.csv) that the warehouse does not hold yet, from its CSV file, so that a plain
        `dbt run`, which loads no seeds, works on a fresh state as `dbt build` does (dbt build
        and dbt seed load their seeds themselves: nothing to do then). Spark reads the file at
        the project's path: the local and connect profiles run Spark on this machine; a cluster
        whose Spark does not see the project folder fails here with Spark's "path does not
        exist" and needs `dbt seed` once. A loaded seed is left to dbt seed / dbt build, which
        replace it. Renders no SQL.
    -#}
    {%- if execute and flags.WHICH not in ['build', 'seed'] -%}
        {%- for seed in graph.nodes.values() if seed.resource_type == 'seed' and seed.package_name == project_name -%}
            {%- if adapter.get_relation(database=none, schema=seed.schema, identifier=seed.alias) is none -%}
                {%- set relation = api.Relation.create(schema=seed.schema, identifier=seed.alias) -%}
                {%- set csv_path = seed.root_path.rstrip('/') ~ '/' ~ seed.original_file_path -%}
                {%- do run_query('create schema if not exists ' ~ seed.schema) -%}
                {#- RFC 4180 quoting (a doubled quote inside quotes), as dbt seed reads the file -#}
                {%- do run_query(
                    "create or replace temporary view cdc_reference_csv using csv options ("
                    ~ "path '" ~ csv_path ~ "', header 'true', quote '\"', escape '\"', multiLine 'true', mode 'FAILFAST')"
                ) -%}
                {%- do run_query('create table ' ~ relation ~ ' using parquet as select * from cdc_reference_csv') -%}
                {%- do run_query('drop view cdc_reference_csv') -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return('') }}
{% endmacro %}
