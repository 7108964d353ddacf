{% test cdc_history_versions_do_not_overlap(model) %}
{#-
    The history of a current-state table (<model>_history) gives each key intervals that do not
    overlap: in the order of the versions, each starts no earlier than the one before ends, only
    the last one is current, and the current one alone has no end.
-#}
{%- set key_columns = [] -%}
{%- for key in (cdc_target_table(model.identifier).key_columns if execute else ['1']) -%}
    {%- do key_columns.append(cdc_quote(key)) -%}
{%- endfor -%}
with

versions as (
    select
        {{ key_columns | join(', ') }},
        valid_from,
        valid_to,
        is_current,
        _cdc.change_sequence as change_sequence,
        lead(valid_from) over key_order as next_valid_from,
        lead(true, 1, false) over key_order as has_next
    from {{ cdc_history_relation(model) }}
    window key_order as (
        partition by {{ key_columns | join(', ') }}
        order by valid_from, valid_to nulls last, _cdc.change_sequence
    )
),

final as (
    select
        versions.*,
        case
            when versions.valid_to < versions.valid_from then 'ends before it starts'
            when versions.has_next and versions.valid_to is null then 'open but not the last version'
            when versions.next_valid_from < versions.valid_to then 'overlaps the next version'
            when versions.is_current and versions.has_next then 'current but not the last version'
            when versions.is_current != (versions.valid_to is null) then 'current exactly when open: not so'
        end as problem
    from versions
)

select * from final
where problem is not null
{% endtest %}
