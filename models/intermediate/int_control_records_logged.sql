{#- Every control record (heartbeats, tombstones, transaction boundaries, DDL, ...): logged, never applied. -#}

with

control_records as (
    {{ cdc_staged_records('control') }}
),

outcome_reasons as (
    select * from {{ ref('cdc_outcome_reasons') }}
),

final as (
    select
        control_records.raw_record_id,
        control_records.flavour,
        control_records.outcome_reason as control_kind,
        outcome_reasons.description as control_description,
        control_records.source_database,
        control_records.source_schema,
        control_records.source_table,
        control_records.commit_timestamp,
        control_records.transaction_id,
        control_records.landing_file,
        control_records.landing_position,
        control_records.kafka_topic,
        control_records.kafka_partition,
        control_records.kafka_offset,
        control_records.raw_key,
        control_records.raw_value,
        control_records.loaded_at
    from control_records
    left join outcome_reasons
        on control_records.outcome_reason = outcome_reasons.reason_code
)

select * from final
