{{ config(materialized='incremental', incremental_strategy='append') }}


with

change_events as (
    select *
    from {{ ref('int_change_events_keyed') }}
    where
        change_kind = 'truncate_table'
        and rejection_reason is null
        and {{ cdc_is_new_record() }}
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
