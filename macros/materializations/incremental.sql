{% materialization incremental, adapter='spark', supported_languages=['sql'] %}
    {#-
        dbt-spark's incremental materialization, except that a run with nothing new to read (the
        model's SQL is cdc_no_new_records: a staging model with no new landed file, the log of
        checked changes with nothing staged since its last check) runs no statement at all.
        dbt-spark would still create a temporary view of the empty query, describe it and the
        table three times and insert nothing: five statements and about 0.3 s per model, paid by
        every staging model in every run (measured on the sample's nothing-new run). Every other
        run is dbt-spark's own materialization, unchanged.
    -#}
    {%- set existing_relation = load_cached_relation(this) -%}
    {%- if cdc_nothing_new_marker() in sql
        and existing_relation is not none and existing_relation.is_table and not should_full_refresh() -%}
        {{ run_hooks(pre_hooks) }}
        {% call noop_statement('main', 'nothing new') -%}{%- endcall %}
        {{ run_hooks(post_hooks) }}
        {{ return({'relations': [this]}) }}
    {%- endif -%}
    {{ return(dbt.materialization_incremental_spark()) }}
{% endmaterialization %}
