{#- Shared by the staging models' data tests (tests/dbt/generic): a macro of a generic test's file is not one dbt registers. -#}

{% macro _cdc_audited_records(model) -%}
    {#-
        The condition on a staging model's records that its data tests check: those of its
        latest run (the newest loaded_at: earlier runs' records were checked by their own
        builds), or every record with var cdc_audit_all_files: true.
    -#}
    {%- if var('cdc_audit_all_files', false) -%}
        true
    {%- else -%}
        loaded_at = (select max(loaded_at) from {{ model }})
    {%- endif -%}
{%- endmacro %}
