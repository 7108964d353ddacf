{{ config(severity='warn') }}

{#-
    Two different changes of one key with the same change sequence: the fold resolves them by
    arrival (the later one wins), which is deterministic but probably not what the source did.
    Duplicate deliveries of one change (same content) are not reported, nor are changes
    without a sequence (ordered by arrival alone). Reads every staged
    change of every declared table, typed as the current-state tables type them (only the
    tables with staged changes, from the staging models that hold them).
-#}

{#- The staging models it reads through cdc_typed_changes (dbt sees refs made in loops over the registry only at run time). #}
{%- for model_name in var('cdc_staging_models') %}
-- depends_on: {{ ref(model_name) }}
{%- endfor %}
{#- Only the tables with staged changes, from the staging models that hold them. -#}
{%- set checked_tables = cdc_tables_with_new_changes() %}

with

{% for checked in checked_tables %}
{%- set target_table = checked.target_table %}
changes_{{ loop.index }} as (
    select
        {{ cdc_sql_string(target_table.name) }} as target_table,
        to_json(named_struct(
            {%- for key in target_table.key_columns %}
            {{ cdc_sql_string(key) }}, typed_changes.{{ cdc_quote(key) }}{{ ',' if not loop.last }}
            {%- endfor %}
        )) as row_key,
        typed_changes.change_version.sequence as change_sequence,
        xxhash64(
            typed_changes.change_kind,
            to_json(named_struct(
                {%- for column in target_table.columns %}
                {{ cdc_sql_string(column.name) }}, typed_changes.{{ cdc_quote(column.name) }}{{ ',' if not loop.last }}
                {%- endfor %}
            ))
        ) as change_content,
        concat(typed_changes.landing_file, ':', cast(typed_changes.landing_position as string)) as landed_at_position
    from (
        {{ cdc_typed_changes(
            target_table, staging_models=checked.staging_models, schema_names=checked.schema_names,
        ) | indent(8) }}
    ) as typed_changes
    {# A change without a sequence (open-source Canal) is ordered by arrival alone, which never ties. #}
    {{ cdc_keep_rows_where(
        "typed_changes.rejection_reason is null and typed_changes.change_kind != 'truncate_table'"
        ~ " and typed_changes.change_version.sequence is not null"
    ) }}
),

{% endfor %}
applied_changes as (
    {%- for checked in checked_tables %}
    select * from changes_{{ loop.index }}
    union all
    {%- endfor %}
    select
        cast(null as string) as target_table,
        cast(null as string) as row_key,
        cast(null as array<bigint>) as change_sequence,
        cast(null as bigint) as change_content,
        cast(null as string) as landed_at_position
    where false
),

contents as (
    select
        applied_changes.target_table,
        applied_changes.row_key,
        applied_changes.change_sequence,
        count(distinct applied_changes.change_content) as distinct_changes,
        count(*) as deliveries,
        collect_set(applied_changes.landed_at_position) as landed_at_positions
    from applied_changes
    group by applied_changes.target_table, applied_changes.row_key, applied_changes.change_sequence
)

select *
from contents
where distinct_changes > 1
