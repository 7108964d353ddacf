{#-
    Every record that could not be used, with a reason code and what to do about it: records
    staging could not parse, and change events the registry could not route, key or type.
-#}

with

staged_quarantined_records as (
    {{ cdc_staged_records('quarantined') }}
),

change_rejections as (
    select * from {{ ref('int_change_rejections_logged') }}
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
        {#- a decoder's own error (DTS Avro: the Avro error or the value that did not decode) -#}
        if(
            staged_quarantined_records.outcome_reason in ('invalid_avro', 'undecodable_value', 'invalid_parquet'),
            get_json_object(staged_quarantined_records.raw_value, '$.error'),
            null
        ) as reason_detail,
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
        change_rejections.raw_record_id,
        change_rejections.row_index,
        change_rejections.flavour,
        'routing' as quarantined_at,
        change_rejections.rejection_reason as reason_code,
        change_rejections.rejection_detail as reason_detail,
        change_rejections.source_database,
        change_rejections.source_schema,
        change_rejections.source_table,
        change_rejections.landing_file,
        change_rejections.landing_position,
        change_rejections.kafka_topic,
        change_rejections.kafka_partition,
        change_rejections.kafka_offset,
        cast(null as string) as raw_key,
        change_rejections.rejected_change as raw_value,
        change_rejections.loaded_at
    from change_rejections
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
