{% macro cdc_current_state() %}
    {#-
        The whole SQL of a current-state table: the live rows of one target table, typed as
        its YAML declares. The model's file holds only `{{ cdc_current_state() }}`; its YAML
        (config.meta.cdc + columns) says which source table it follows and how.

        Incremental runs rewrite only the key buckets whose rows changed since the table's
        last run (insert_overwrite on _cdc_key_bucket); buckets left without live rows are
        dropped first by cdc_drop_emptied_buckets, the marts' pre-hook.
    -#}
    {%- set target_table = cdc_target_table(model.name) if execute else {'columns': []} -%}
    {%- set touched_buckets = _cdc_touched_buckets() if execute and is_incremental() else none -%}

    with

    row_states as (
        select *
        from {{ ref('int_row_state_folded') }}
        where target_table = '{{ model.name }}'
    ),

    current_rows as (
        select row_states.*
        from row_states
        where
            not row_states.is_deleted
            {%- if touched_buckets is not none %}
            and row_states.key_bucket in ({{ (touched_buckets or [-1]) | join(', ') }})
            {%- endif %}
    ),

    final as (
        select
            {%- for column in target_table.columns %}
            {{ cdc_value_from_normalized_text('current_rows.row_values[' ~ cdc_sql_string(column.name) ~ ']', column.data_type) }} as {{ column.name }},
            {%- endfor %}
            named_struct(
                'operation', current_rows.last_change.operation,
                'change_sequence', current_rows.last_change.version.sequence,
                'commit_timestamp', current_rows.last_change.commit_timestamp,
                'loaded_at', current_rows.loaded_at
            ) as _cdc,
            current_rows.key_bucket as _cdc_key_bucket
        from current_rows
    )

    select * from final
{% endmacro %}


{% macro cdc_drop_emptied_buckets() %}
    {#-
        Pre-hook of the current-state tables: insert_overwrite replaces only the buckets the
        new rows fall in, so a touched bucket whose rows were all deleted is dropped here.
    -#}
    {% if execute and is_incremental() and model.config.get('meta', {}).get('cdc') %}
        {% set touched_buckets = _cdc_touched_buckets() %}
        {% if touched_buckets | length > 0 %}
            {% set query %}
                select row_states.key_bucket
                from {{ ref('int_row_state_folded') }} as row_states
                where
                    row_states.target_table = '{{ model.name }}'
                    and row_states.key_bucket in ({{ touched_buckets | join(', ') }})
                group by row_states.key_bucket
                having count_if(not row_states.is_deleted) = 0
            {% endset %}
            {% set emptied = run_query(query).columns[0].values() %}
            {% if emptied | length > 0 %}
                {% set partitions = [] %}
                {% for bucket in emptied %}
                    {% do partitions.append('partition (_cdc_key_bucket = ' ~ bucket ~ ')') %}
                {% endfor %}
                alter table {{ this }} drop if exists {{ partitions | join(', ') }}
            {% endif %}
        {% endif %}
    {% endif %}
{% endmacro %}


{% macro _cdc_touched_buckets() %}
    {#- Key buckets of this model's target table whose row states changed since its last run. -#}
    {% if not execute %}
        {{ return([]) }}
    {% endif %}
    {% set loaded_after = cdc_watermark(this, '_cdc.loaded_at') %}
    {% set query %}
        select distinct row_states.key_bucket
        from {{ ref('int_row_state_folded') }} as row_states
        where
            row_states.target_table = '{{ model.name }}'
            {%- if loaded_after %}
            and row_states.loaded_at > {{ loaded_after }}
            {%- endif %}
        order by 1
    {% endset %}
    {{ return(run_query(query).columns[0].values() | map('int') | list) }}
{% endmacro %}
