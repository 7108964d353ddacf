{#-
    The unit tests' window on the typing rules: the rejections that the first registered table's
    typing gives over every staged change, exactly as its current-state model logs them in
    <model>__cdc_rejections (the same two macros). Built only with
    --vars '{cdc_unit_test_models: true}', as tests/e2e/test_dbt_unit_tests.py sets it.
-#}

{%- set target_tables = cdc_target_tables() if execute else [] -%}
{%- set target_table = target_tables[0] if target_tables else fromjson(cdc_parse_time_target_table('typed_change_rejections')) -%}
{%- set plan = {'loaded_after': none, 'staging_models': none} %}

with

new_changes as (
    {{ cdc_new_changes(target_table, plan) | indent(4) }}
),

final as (
    {{ cdc_change_rejections('new_changes', target_table) | indent(4) }}
)

select * from final
