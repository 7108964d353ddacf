{#-
    The versions a table with history shows (<model>_history) for its staged changes: the
    changes a current-state model applies (cdc_current_state), then their versions
    (cdc_history_versions), in one statement. It exists for the unit tests of the history
    rules (_rules__unit_tests.yml), whose override of cdc_target_table gives the registry
    entry: no table of the project is built from it.
-#}
{%- set target_table = cdc_target_table(model.name) if execute else none %}
with

applied_changes as (
    {%- if target_table is none %}
    {#- parsing and linting: the refs cdc_current_state makes while parsing (every staging model), not its
        SQL, which the marts are linted for (linted here again, it took a quarter of the lint's time) #}
    {%- for staging_model in var('cdc_staging_models') %}
    select * from {{ ref(staging_model) }}{{ ' union all' if not loop.last }}
    {%- endfor %}
    {%- else %}
    {{ cdc_current_state() | indent(4) }}
    {%- endif %}
),

versions as (
    {%- if target_table is none %}
    {#- parsing and linting: no registry entry, so no columns to version #}
    select * from applied_changes
    {%- else %}
    {{ cdc_history_versions('applied_changes', target_table) | indent(4) }}
    {%- endif %}
),

final as (
    select * from versions
)

select * from final
