{{ config(materialized='incremental', incremental_strategy='append') }}

{%- set loaded_after = cdc_watermark(this, 'loaded_at') if is_incremental() else none -%}

with

change_events as (
    select *
    from {{ ref('int_change_events_keyed') }}
    where
        change_kind = 'truncate_table'
        and rejection_reason is null
        {%- if loaded_after %}
        and loaded_at > {{ loaded_after }}
        {%- endif %}
),

final as (
    select
        change_events.target_table,
        change_events.change_version as truncate_version,
        change_events.commit_timestamp,
        change_events.raw_record_id,
        change_events.loaded_at
    from change_events
)

select * from final
