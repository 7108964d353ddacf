{% test cdc_unique_combination(model, columns) %}
{#- No two rows share the same values of `columns`. -#}
select
    {{ columns | join(', ') }},
    count(*) as row_count
from {{ model }}
group by {{ columns | join(', ') }}
having count(*) > 1
{% endtest %}
