{{ config(materialized='incremental', incremental_strategy='append') }}

{%- set target_tables = cdc_target_tables() -%}

with

staged_changes as (
    {{ cdc_staged_records('change', where=cdc_is_new_record()) }}
),

target_tables as (
    {{ cdc_target_tables_values(target_tables) }}
),

routed_changes as (
    select
        staged_changes.*,
        target_tables.target_table,
        target_tables.key_columns,
        target_tables.column_types,
        target_tables.column_encodings,
        target_tables.declared_columns
    from staged_changes
    left join target_tables
        on
            lower(staged_changes.source_table) = target_tables.source_table
            and (
                target_tables.source_database is null
                or lower(staged_changes.source_database) <=> target_tables.source_database
            )
            and (
                target_tables.source_schema is null
                or lower(staged_changes.source_schema) <=> target_tables.source_schema
            )
),

keyed_changes as (
    select
        routed_changes.*,
        -- the row's key as the change names it: the new key for inserts and updates, the old one for deletes
        transform(
            routed_changes.key_columns,
            column_name -> case routed_changes.operation
                when 'delete'
                    then coalesce(
                        routed_changes.before_image[column_name],
                        routed_changes.key_image[column_name],
                        routed_changes.after_image[column_name]
                    )
                when 'update'
                    then coalesce(
                        routed_changes.after_image[column_name],
                        routed_changes.before_image[column_name],
                        routed_changes.key_image[column_name]
                    )
                else coalesce(routed_changes.after_image[column_name], routed_changes.key_image[column_name])
            end
        ) as key_texts,
        -- the declared columns the change carries, each normalized to its declared type
        map_from_entries(
            transform(
                filter(
                    routed_changes.declared_columns,
                    column_name -> map_contains_key(routed_changes.after_image, column_name)
                ),
                column_name -> struct(
                    column_name,
                    {{ cdc_normalized_text_by_type(
                        'routed_changes.after_image[column_name]',
                        'routed_changes.column_types[column_name]',
                        'routed_changes.column_encodings[column_name]',
                        target_tables
                    ) | indent(20) }}
                )
            )
        ) as typed_after_image
    from routed_changes
),

normalized_keys as (
    select
        keyed_changes.*,
        zip_with(
            keyed_changes.key_columns,
            keyed_changes.key_texts,
            (column_name, key_text) -> {{ cdc_normalized_text_by_type(
                'key_text', 'keyed_changes.column_types[column_name]', 'keyed_changes.column_encodings[column_name]', target_tables
            ) | indent(12) }}
        ) as key_values,
        transform(
            keyed_changes.key_columns,
            column_name -> {{ cdc_normalized_text_by_type(
                'keyed_changes.before_image[column_name]',
                'keyed_changes.column_types[column_name]',
                'keyed_changes.column_encodings[column_name]',
                target_tables
            ) | indent(12) }}
        ) as before_key_values
    from keyed_changes
),

validated_changes as (
    select
        normalized_keys.*,
        array_union(
            filter(
                map_keys(normalized_keys.typed_after_image),
                column_name -> normalized_keys.typed_after_image[column_name] is null
                and normalized_keys.after_image[column_name] is not null
            ),
            filter(
                zip_with(
                    normalized_keys.key_columns,
                    zip_with(
                        normalized_keys.key_texts,
                        normalized_keys.key_values,
                        (key_text, key_value) -> key_text is not null and key_value is null
                    ),
                    (column_name, is_uncastable) -> if(is_uncastable, column_name, null)
                ),
                column_name -> column_name is not null
            )
        ) as uncastable_columns,
        normalized_keys.operation = 'update'
        and forall(normalized_keys.before_key_values, key_value -> key_value is not null)
        and normalized_keys.before_key_values != normalized_keys.key_values as is_key_change
    from normalized_keys
),

rejected_changes as (
    select
        validated_changes.*,
        case
            when validated_changes.target_table is null then 'unknown_table'
            when validated_changes.operation = 'truncate' then null
            when exists(validated_changes.key_texts, key_text -> key_text is null) then 'missing_key'
            when size(validated_changes.uncastable_columns) > 0 then 'uncastable_value'
        end as rejection_reason,
        case
            when validated_changes.target_table is null
                then concat_ws(
                    '.', validated_changes.source_database, validated_changes.source_schema, validated_changes.source_table
                )
            when validated_changes.operation = 'truncate' then null
            when exists(validated_changes.key_texts, key_text -> key_text is null)
                then array_join(
                    filter(
                        zip_with(
                            validated_changes.key_columns,
                            validated_changes.key_texts,
                            (column_name, key_text) -> if(key_text is null, column_name, null)
                        ),
                        column_name -> column_name is not null
                    ),
                    ', '
                )
            when size(validated_changes.uncastable_columns) > 0
                then array_join(array_sort(validated_changes.uncastable_columns), ', ')
        end as rejection_detail
    from validated_changes
),

-- a change of key is a delete of the old key plus an upsert of the new one
key_change_rows as (
    select
        rejected_changes.*,
        key_change_row.is_old_key_delete
    from rejected_changes
        lateral view explode(
            if(
                rejected_changes.rejection_reason is null and rejected_changes.is_key_change,
                array(true, false),
                array(false)
            )
        ) key_change_row as is_old_key_delete
),

change_rows as (
    select
        key_change_rows.raw_record_id,
        key_change_rows.row_index,
        key_change_rows.flavour,
        key_change_rows.source_database,
        key_change_rows.source_schema,
        key_change_rows.source_table,
        key_change_rows.operation,
        key_change_rows.target_table,
        case
            when key_change_rows.rejection_reason is not null or key_change_rows.operation = 'truncate' then null
            when key_change_rows.is_old_key_delete then to_json(key_change_rows.before_key_values)
            else to_json(key_change_rows.key_values)
        end as row_key,
        case
            when key_change_rows.operation = 'truncate' then 'truncate_table'
            when key_change_rows.operation = 'delete' or key_change_rows.is_old_key_delete then 'delete_row'
            when key_change_rows.operation in ('insert', 'snapshot') then 'replace_row'
            when forall(
                key_change_rows.declared_columns,
                column_name -> map_contains_key(key_change_rows.typed_after_image, column_name)
            ) then 'replace_row'
            else 'update_columns'
        end as change_kind,
        if(
            key_change_rows.operation in ('delete', 'truncate') or key_change_rows.is_old_key_delete,
            null,
            key_change_rows.typed_after_image
        ) as row_image,
        key_change_rows.key_image,
        key_change_rows.before_image,
        key_change_rows.after_image,
        named_struct(
            'sequence', key_change_rows.change_sequence,
            'arrival_stream', coalesce(
                concat(key_change_rows.kafka_topic, '/', lpad(cast(key_change_rows.kafka_partition as string), 10, '0')),
                key_change_rows.landing_file
            ),
            'arrival_position', coalesce(key_change_rows.kafka_offset, key_change_rows.landing_position),
            'row_index', key_change_rows.row_index
        ) as change_version,
        key_change_rows.commit_timestamp,
        key_change_rows.transaction_id,
        key_change_rows.rejection_reason,
        key_change_rows.rejection_detail,
        key_change_rows.landing_file,
        key_change_rows.landing_position,
        key_change_rows.kafka_topic,
        key_change_rows.kafka_partition,
        key_change_rows.kafka_offset,
        key_change_rows.loaded_at
    from key_change_rows
),

final as (
    select
        change_rows.*,
        if(
            change_rows.row_key is null,
            null,
            cast(pmod(xxhash64(change_rows.target_table, change_rows.row_key), {{ var('cdc_key_buckets') | int }}) as int)
        ) as key_bucket
    from change_rows
)

select * from final
