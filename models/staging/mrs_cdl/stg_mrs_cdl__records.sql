with

landed_json_lines as (
    {{ landed_json_lines(source('mrs_cdl', 'json_lines')) }}
),

landed_kafka_records as (
    {{ landed_kafka_records(source('mrs_cdl', 'kafka_records')) }}
),

landed_records as (
    select * from landed_json_lines
    union all
    select * from landed_kafka_records
),

change_records as (
    {{ debezium_family_records('landed_records', flavour='mrs_cdl', with_cdl_v1=true) }}
),

final as (
    select * from change_records
)

select * from final
