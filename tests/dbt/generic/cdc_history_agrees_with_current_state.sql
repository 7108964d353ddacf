{% test cdc_history_agrees_with_current_state(model) %}
{#- The current versions of a table's history (<model>_history) are its current-state rows, value for value. -#}
{%- set names = [] -%}
{%- for column in (cdc_target_table(model.identifier).columns if execute else [{'name': 'id'}]) -%}
    {%- do names.append(cdc_quote(column.name)) -%}
{%- endfor -%}
with

current_rows as (
    select {{ names | join(', ') }}
    from {{ model }}
),

current_versions as (
    select {{ names | join(', ') }}
    from {{ cdc_history_relation(model) }}
    where is_current
),

final as (
    select 'in the current state, not current in the history' as problem, only_current.*
    from (select * from current_rows except all select * from current_versions) as only_current
    union all
    select 'current in the history, not in the current state' as problem, only_history.*
    from (select * from current_versions except all select * from current_rows) as only_history
)

select * from final
{% endtest %}
