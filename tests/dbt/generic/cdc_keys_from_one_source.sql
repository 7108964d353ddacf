{% test cdc_keys_from_one_source(model) %}
{#-
    For a current-state table that merges several source tables (meta.cdc.source a list or a
    pattern) without the source table in its key: one row per key that more than one source
    table has changed, with those source tables. Such a key is decided by change
    version (the latest change wins, whichever shard sent it); this test reports it, as a
    warning by default. Reads every staged change of the table, typed by the same rule as the
    table itself (cdc_typed_changes), so a key is compared as the table compares it; only from
    the staging models that hold its changes, with the decodings their values need
    (cdc_tables_with_new_changes).
-#}
{{ config(severity='warn') }}
{%- set checked_tables = cdc_tables_with_new_changes() | selectattr('target_table.name', 'equalto', model.identifier) | list
    if execute else [] %}
{%- if checked_tables %}
{%- set target_table = checked_tables[0].target_table %}
{%- set key_columns = [] %}
{%- for key in target_table.key_columns %}
{%- do key_columns.append('typed_changes.' ~ cdc_quote(key)) %}
{%- endfor %}
select
    {{ key_columns | join(', ') }},
    array_sort(collect_set(
        concat_ws('.', typed_changes.source_database, typed_changes.source_schema, typed_changes.source_table)
    )) as source_tables
from (
    {{ cdc_typed_changes(
        target_table, staging_models=checked_tables[0].staging_models, schema_names=checked_tables[0].schema_names,
    ) | indent(4) }}
) as typed_changes
{{ cdc_keep_rows_where("typed_changes.rejection_reason is null and typed_changes.change_kind <> 'truncate_table'") }}
group by {{ key_columns | join(', ') }}
having count(distinct lower(
    concat_ws('.', typed_changes.source_database, typed_changes.source_schema, typed_changes.source_table)
)) > 1
{%- else %}
{#- parsing (the staging models this test reads, for dbt's dependency graph), or no staged change of the table -#}
{%- for model_name in var('cdc_staging_models') %}
-- depends_on: {{ ref(model_name) }}
{%- endfor %}
select 1 as no_staged_change
where false
{%- endif %}
{% endtest %}
