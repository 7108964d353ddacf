{#-
    Stand-ins for the macros that generate most of a model's SQL, loaded after the project's own
    macros when sqlfluff lints (.sqlfluff: load_macros_from_path), so that they replace them.

    sqlfluff styles a file's own text; what a macro renders is templated SQL, which its rules
    leave out (checked 2026-12-05: a macro's uppercase SELECT passed). Rendered for real, the SQL
    of these macros is 12-55 KB per model, and sqlfluff parsed and walked all of it to report
    nothing: 9-20 s of CPU per model. Each stand-in renders the smallest SELECT that reads the
    relation the file names, so that the file's own CTEs and references lint as before. Spark
    parses and runs the real SQL in every test build (bin/test's pytest).
-#}

{% macro cdc_landed_records(landing_relations, value_format='json') -%}
    select * from {{ landing_relations | first }}
{%- endmacro %}

{% macro debezium_family_records(landed_relation, flavour, with_cdl_v1=false) -%}
    select * from {{ landed_relation }}
{%- endmacro %}

{% macro arcion_internal_json_records(landed_relation, flavour) -%}
    select * from {{ landed_relation }}
{%- endmacro %}

{% macro arcion_internal_csv_records(landed_relation, flavour) -%}
    select * from {{ landed_relation }}
{%- endmacro %}

{% macro canal_json_records(landed_relation, flavour, dts_landings) -%}
    select * from {{ landed_relation }}
{%- endmacro %}

{% macro dts_avro_records(landed_relation, flavour) -%}
    select * from {{ landed_relation }}
{%- endmacro %}

{% macro parquet_export_records(landed_relation, flavour) -%}
    select * from {{ landed_relation }}
{%- endmacro %}

{% macro shareplex_json_records(landed_relation, flavour) -%}
    select * from {{ landed_relation }}
{%- endmacro %}

{% macro cdc_current_state() -%}
    select * from {{ this }}
{%- endmacro %}
