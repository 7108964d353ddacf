{% macro cdc_report_declared_type_mismatches() %}
    {#-
        on-run-end: a warning per current-state table whose changes staged in this run were
        rejected because a value does not fit the column's declared type (uncastable_value),
        naming the columns, the type their values arrive as and what to do. Nothing when the
        run did not check changes (int_changes_checked wrote no partition of this run's staging
        time). Renders no SQL.
    -#}
    {%- if execute -%}
        {%- set built = [] -%}
        {%- for result in results if result.node.name == 'int_changes_checked' and result.status == 'success' -%}
            {%- do built.append(result.node) -%}
        {%- endfor -%}
        {%- set node = built[0] if built else none -%}
        {%- set relation = api.Relation.create(schema=node.schema, identifier=node.alias) if node is not none else none -%}
        {#- only when the run wrote checked changes: a run that checked nothing made no partition (show partitions: no Spark job) -#}
        {%- if relation is not none and _cdc_run_staging_time() in (_cdc_partitions(relation) | map(attribute='loaded_at') | list) -%}
            {%- set query -%}
                select rejections.target_table, rejections.rejection_detail, count(*) as changes
                from {{ relation }} as rejections
                where rejections.loaded_at = {{ cdc_loaded_at() }} and rejections.rejection_reason = 'uncastable_value'
                group by rejections.target_table, rejections.rejection_detail
                order by rejections.target_table, rejections.rejection_detail
                limit 50
            {%- endset -%}
            {%- for target_table, detail, changes in run_query(query).rows -%}
                {%- do exceptions.warn(
                    "Current-state table " ~ target_table ~ ": " ~ changes ~ " change(s) of this run rejected"
                    ~ " (uncastable_value, in int_change_rejections_logged): " ~ detail
                    ~ ". If the source changed the column's type, change its data_type in the table's YAML,"
                    ~ " then: dbt build --full-refresh --select " ~ target_table
                ) -%}
            {%- endfor -%}
        {%- endif -%}
    {%- endif -%}
{% endmacro %}
