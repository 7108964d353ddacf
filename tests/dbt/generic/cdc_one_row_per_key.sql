{% test cdc_one_row_per_key(model) %}
{#- A current-state table has one row per key of its registry entry (meta.cdc.keys), and no null key. -#}
{%- set key_columns = [] -%}
{%- for key in (cdc_target_table(model.identifier).key_columns if execute else ['1']) -%}
    {%- do key_columns.append(cdc_quote(key)) -%}
{%- endfor -%}
select
    {{ key_columns | join(', ') }},
    count(*) as row_count
from {{ model }}
group by {{ key_columns | join(', ') }}
having count(*) > 1 or {% for key_column in key_columns %}{{ key_column }} is null{{ ' or ' if not loop.last }}{% endfor %}
{% endtest %}
