with

landed_records as (
    {{ landed_records([source('debezium', 'json_lines'), source('debezium', 'kafka_records')]) }}
),

change_records as (
    {{ debezium_family_records('landed_records', flavour='debezium') }}
),

final as (
    select * from change_records
)

select * from final
