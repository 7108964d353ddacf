{#-
    Stand-ins for the macros that generate most of a model's SQL, loaded after the project's own
    macros when sqlfluff lints (.sqlfluff: load_macros_from_path), so that they replace them.

    sqlfluff styles a file's own text; what a macro renders is templated SQL, which its rules
    leave out (checked 2026-12-05: a macro's uppercase SELECT passed). Rendered for real, the SQL
    of these macros is 12-55 KB per model, and sqlfluff parsed and walked all of it to report
    nothing: 9-20 s of CPU per model. Each stand-in renders the smallest SELECT that reads the
    relation the file names, so that the file's own CTEs and references lint as before. Spark
    parses and runs the real SQL in every test build (bin/test's pytest). A stand-in takes any
    other argument its macro takes: Jinja lets a macro accept extra positional or keyword
    arguments only when its body names `varargs` or `kwargs`, hence the `do` lines.
-#}

{% macro cdc_landed_records(landing_relations) -%}
    {%- do kwargs -%}
    select * from {{ landing_relations | first }}
{%- endmacro %}

{#- every flavour's parser: the staging model's landed records, whatever else it is given -#}
{% macro cdc_parser_stand_in(landed_relation) -%}
    {%- do varargs -%}{%- do kwargs -%}
    select * from {{ landed_relation }}
{%- endmacro %}
{%- set debezium_family_records = cdc_parser_stand_in %}
{%- set arcion_internal_json_records = cdc_parser_stand_in %}
{%- set arcion_internal_csv_records = cdc_parser_stand_in %}
{%- set canal_json_records = cdc_parser_stand_in %}
{%- set dts_avro_records = cdc_parser_stand_in %}
{%- set parquet_export_records = cdc_parser_stand_in %}
{%- set shareplex_json_records = cdc_parser_stand_in %}

{% macro cdc_current_state() -%}
    select * from {{ this }}
{%- endmacro %}
