with

landed_records as (
    {{ landed_records([source('mrs_cdl', 'json_lines'), source('mrs_cdl', 'kafka_records')]) }}
),

change_records as (
    {{ debezium_family_records('landed_records', flavour='mrs_cdl', with_cdl_v1=true) }}
),

final as (
    select * from change_records
)

select * from final
