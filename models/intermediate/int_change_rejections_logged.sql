{#-
    Every staged change that no current-state table can apply, with the reason: the rejected
    rows of int_changes_checked, which checks each staged change once, with the typing the
    current-state tables use.
-#}

with

checked_changes as (
    select * from {{ ref('int_changes_checked') }}
),

final as (
    select
        checked_changes.raw_record_id,
        checked_changes.row_index,
        checked_changes.flavour,
        checked_changes.source_database,
        checked_changes.source_schema,
        checked_changes.source_table,
        checked_changes.operation,
        checked_changes.target_table,
        checked_changes.rejection_reason,
        checked_changes.rejection_detail,
        checked_changes.rejected_change,
        checked_changes.landing_file,
        checked_changes.landing_position,
        checked_changes.kafka_topic,
        checked_changes.kafka_partition,
        checked_changes.kafka_offset,
        checked_changes.loaded_at
    from checked_changes
    where checked_changes.rejection_reason is not null
)

select * from final
