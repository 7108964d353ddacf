{#-
    Every record that could not be used, with a reason code and what to do about it: records
    staging could not parse, and change events the registry could not route, key or type.
-#}

with

staged_quarantined_records as (
    {{ cdc_staged_records('quarantined') }}
),

change_events as (
    select *
    from {{ ref('int_change_events_keyed') }}
    where rejection_reason is not null
),

outcome_reasons as (
    select * from {{ ref('cdc_outcome_reasons') }}
),

unparsed_records as (
    select
        staged_quarantined_records.raw_record_id,
        staged_quarantined_records.row_index,
        staged_quarantined_records.flavour,
        'staging' as quarantined_at,
        staged_quarantined_records.outcome_reason as reason_code,
        cast(null as string) as reason_detail,
        staged_quarantined_records.source_database,
        staged_quarantined_records.source_schema,
        staged_quarantined_records.source_table,
        staged_quarantined_records.landing_file,
        staged_quarantined_records.landing_position,
        staged_quarantined_records.kafka_topic,
        staged_quarantined_records.kafka_partition,
        staged_quarantined_records.kafka_offset,
        staged_quarantined_records.raw_key,
        staged_quarantined_records.raw_value,
        staged_quarantined_records.loaded_at
    from staged_quarantined_records
),

rejected_changes as (
    select
        change_events.raw_record_id,
        change_events.row_index,
        change_events.flavour,
        'routing' as quarantined_at,
        change_events.rejection_reason as reason_code,
        change_events.rejection_detail as reason_detail,
        change_events.source_database,
        change_events.source_schema,
        change_events.source_table,
        change_events.landing_file,
        change_events.landing_position,
        change_events.kafka_topic,
        change_events.kafka_partition,
        change_events.kafka_offset,
        cast(null as string) as raw_key,
        to_json(
            named_struct(
                'operation', change_events.operation,
                'key', change_events.key_image,
                'before', change_events.before_image,
                'after', change_events.after_image
            )
        ) as raw_value,
        change_events.loaded_at
    from change_events
),

quarantined_records as (
    select * from unparsed_records
    union all
    select * from rejected_changes
),

final as (
    select
        quarantined_records.*,
        outcome_reasons.description as reason_description,
        outcome_reasons.how_to_fix
    from quarantined_records
    left join outcome_reasons
        on quarantined_records.reason_code = outcome_reasons.reason_code
)

select * from final
