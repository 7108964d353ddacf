with

landed_records as (
    {{ landed_records([source('arcion_kafka', 'json_lines'), source('arcion_kafka', 'kafka_records')]) }}
),

change_records as (
    {{ debezium_family_records('landed_records', flavour='arcion_kafka') }}
),

final as (
    select * from change_records
)

select * from final
