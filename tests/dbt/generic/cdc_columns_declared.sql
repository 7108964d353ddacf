{% test cdc_columns_declared(model) %}
{#-
    For a current-state table: one row per column that its source sends (a name in a staged
    change's row images) and its YAML does not declare, with how many changes carry it and the
    first raw record that did. Such a column is carried in staging and left out of the table;
    this test reports it, as a warning by default, so that a column added at the source is
    noticed (declare it, then dbt build --full-refresh --select <table>). Like
    cdc_keys_from_one_source, it reads the table's staged changes from the staging models that
    hold new changes of it in this run (cdc_tables_with_new_changes).
-#}
{{ config(severity='warn') }}
{%- set checked_tables = cdc_tables_with_new_changes() | selectattr('target_table.name', 'equalto', model.identifier) | list
    if execute else [] %}
{%- if checked_tables %}
{%- set target_table = checked_tables[0].target_table %}
{%- set declared = [] %}
{%- for column in target_table.columns %}
{%- do declared.append(cdc_sql_string(column.name)) %}
{%- endfor %}
select
    sent_columns.column_name,
    count(*) as changes,
    min(sent_columns.raw_record_id) as first_raw_record_id
from (
    select
        staged_changes.raw_record_id,
        explode(array_union(
            map_keys(coalesce(staged_changes.after_image, map())),
            map_keys(coalesce(staged_changes.before_image, map()))
        )) as column_name
    from (
        {{ cdc_staged_changes_of(target_table, staging_models=checked_tables[0].staging_models) | indent(8) }}
    ) as staged_changes
) as sent_columns
where sent_columns.column_name not in ({{ declared | join(', ') }})
group by sent_columns.column_name
{%- else %}
{#- parsing (the staging models this test reads, for dbt's dependency graph), or no staged change of the table -#}
{%- for model_name in var('cdc_staging_models') %}
-- depends_on: {{ ref(model_name) }}
{%- endfor %}
select
    cast(null as string) as column_name,
    cast(0 as bigint) as changes
where false
{%- endif %}
{% endtest %}
