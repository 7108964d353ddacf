{#-
    Typing the changes of one target table. The registry entry (cdc_target_table) is known
    when dbt compiles, so the SQL is written for that table: one decoding expression per
    declared column, chosen by its declared type and encoding, over the staged images of its
    own source table only (the staging partition). No lambdas over maps, no run-time dispatch
    over types, so Spark compiles the whole projection to Java (whole-stage code generation).

    The result is one row per change in the shape of a row state (see
    macros/folding/fold_changes.sql): the declared columns, typed, plus
      _cdc_reset             struct<version, is_delete> of a change that replaces or deletes the
                             whole row (insert, snapshot read, full update, delete); else null
      _cdc_column_versions   for a partial update: per declared non-key column, the change's
                             version if the change carries the column, else null
      _cdc_last_change       struct<version, operation, commit_timestamp>
      _cdc_loaded_at         when the change was staged
      _cdc_truncated_before  for a truncation: its version (every key column is then null)
      _cdc_moved_from        (moves_whole_rows only) for a move_row: the old key, struct of the
                             key columns
    and, for the quarantine, rejection_reason / rejection_detail, rejected_change (the change as
    parsed, as JSON, for a rejected change only: cdc_change_as_json) and the change's lineage. A
    rejected change keeps only those: no key, no value, no version, so that folding it changes
    nothing. To select rows by rejection_reason, use cdc_keep_rows_where, not WHERE.
-#}

{% macro cdc_typed_changes(target_table, loaded_after=none, claimants=none, staging_models=none, schema_names=none, moves_whole_rows=false) %}
    {#-
        target_table: a registry entry (cdc_target_table). loaded_after: a timestamp literal;
        only changes staged after it are read (none: every staged change). claimants: the
        registry entries of the same source table name (for the quarantine): when given, the
        changes of that name that none of them claims come too, rejected as unknown_table.
        staging_models: the staging models to read (see cdc_staged_changes_of). schema_names:
        {column name: [field schema names]} that the changes to type carry (from
        cdc_schema_names_seen); only the decodings of those names are written (none: every
        decoding, for changes nobody probed). moves_whole_rows: a key change whose image
        leaves columns out becomes a move_row (see cdc_moved_rows_resolved), with the old key in
        _cdc_moved_from; false: an update of the new key with what it carries.
    -#}
    {%- if schema_names is not none and schema_names is not mapping -%}
        {{ exceptions.raise_compiler_error(
            "cdc_typed_changes: schema_names must be a mapping of column name to field schema names, or none; got " ~ schema_names
        ) }}
    {%- endif -%}
    {%- if target_table is not mapping or 'key_columns' not in target_table or 'columns' not in target_table -%}
        {{ exceptions.raise_compiler_error(
            "cdc_typed_changes: target_table must be a registry entry from cdc_target_table(), got " ~ target_table
        ) }}
    {%- endif -%}
    {%- set columns = target_table.columns -%}
    {%- set key_names = target_table.key_columns -%}
    {%- set key_columns = [] -%}
    {%- for name in key_names -%}
        {%- for column in columns if column.name == name -%}
            {%- do key_columns.append(column) -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- set placeholder = cdc_sql_string(var('cdc_debezium_unavailable_value')) -%}
    {%- if columns | selectattr('data_type', 'equalto', 'string') | list and schema_names is not none
        and _cdc_carries(schema_names, cdc_geometry_schema_names()) | trim == 'true' -%}
        {#- a string column may carry a geometry: cdc_value_text calls cdc_geojson_from_wkb -#}
        {%- do cdc_require_helpers(['cdc_geojson_from_wkb']) -%}
    {%- endif %}
    {%- set steps = [] %}

    {%- set step %}
        {{ cdc_staged_changes_of(target_table, loaded_after, claimants, staging_models) | indent(8) }}
    {%- endset %}
    {%- do steps.append(('staged_changes', step)) %}

    {#- Every value the typing reads: each declared column of the after image, and each key column of the before image and of the Kafka key. -#}
    {%- set slots = [] -%}
    {%- for column in columns -%}
        {%- do slots.append({'name': '_after_' ~ loop.index, 'image': 'after_image', 'column': column}) -%}
    {%- endfor -%}
    {%- for column in key_columns -%}
        {%- do slots.append({'name': '_before_key_' ~ loop.index, 'image': 'before_image', 'column': column}) -%}
        {%- do slots.append({'name': '_kafka_key_' ~ loop.index, 'image': 'key_image', 'column': column}) -%}
    {%- endfor %}

    {#- the values that may be {scale, value} decimal objects: those bound for a number or string column -#}
    {%- set object_slots = [] -%}
    {#- the values that may be other encoded decimals (decimal bytes): decoded in the steps below -#}
    {%- set decimal_slots = [] -%}
    {%- for slot in slots if cdc_type_family(slot.column.data_type) | trim in ('number', 'string') and not slot.column.is_source_table -%}
        {%- set names = schema_names.get(slot.column.name, []) if schema_names is not none else none %}
        {%- if cdc_value_may_be_decimal_object(names) | trim == 'true' -%}
            {%- do object_slots.append(slot.name) -%}
        {%- endif -%}
        {%- if cdc_value_has_decimal_bytes(slot.column.data_type, slot.column.encoding, names) | trim == 'true' -%}
            {%- do decimal_slots.append(slot.name) -%}
        {%- endif -%}
    {%- endfor %}

    {#- each step below is its own projection, so that Spark evaluates every step once -#}
    {%- set step %}
        select
            staged_changes.*,
            {%- for slot in slots %}
            {%- set value = 'staged_changes.' ~ slot.image ~ '[' ~ cdc_sql_string(slot.column.name) ~ ']' %}
            {%- set field_schema = 'staged_changes.field_schemas[' ~ cdc_sql_string(slot.column.name) ~ ']' %}
            {%- set names = schema_names.get(slot.column.name, []) if schema_names is not none else none %}
            {%- if slot.column.is_source_table %}
            -- the source table as a key column (meta.cdc.source_in_key)
            lower(concat_ws('.', staged_changes.source_database, staged_changes.source_schema, staged_changes.source_table))
                as {{ slot.name }}_raw_text,
            {%- else %}
            {{ cdc_value_text(value, field_schema, slot.column.data_type, names) }} as {{ slot.name }}_raw_text,
            {%- endif %}
            {%- if slot.name in object_slots %}
            {{ cdc_value_object_decimal_text(value, field_schema, slot.column.data_type, names) }} as {{ slot.name }}_object_text,
            {%- endif %}
            {%- if slot.name in decimal_slots %}
            hex({{ cdc_value_decimal_bytes(value, field_schema, slot.column.data_type, slot.column.encoding, names) }}) as {{ slot.name }}_decimal_hex,
            {{ cdc_value_decimal_scale(value, field_schema, slot.column.data_type, names) }} as {{ slot.name }}_decimal_scale,
            {%- endif %}
            {{ cdc_value_time_text(value, field_schema, slot.column.data_type, names) }} as {{ slot.name }}_time_text,
            {%- endfor %}
            {{ cdc_change_version('staged_changes') | indent(12) }} as change_version
        from staged_changes
    {%- endset %}
    {%- do steps.append(('read_values', step)) %}

    {%- set step %}
        select
            read_values.*{{ ',' if decimal_slots }}
            {%- for slot in decimal_slots %}
            -- a scale Spark cannot hold (a schema may say anything) is null: the value has no decimal text, so it is uncastable
            if(read_values.{{ slot }}_decimal_scale between 0 and 38, read_values.{{ slot }}_decimal_scale, null)
                as {{ slot }}_scale,
            {{ cdc_signed_integer_from_hex('read_values.' ~ slot ~ '_decimal_hex') }} as {{ slot }}_unscaled{{ ',' if not loop.last }}
            {%- endfor %}
        from read_values
    {%- endset %}
    {%- do steps.append(('decimal_integers', step)) %}

    {%- set step %}
        select
            decimal_integers.*{{ ',' if decimal_slots }}
            {%- for slot in decimal_slots %}
            {%- set absolute = 'cast(abs(decimal_integers.' ~ slot ~ '_unscaled) as string)' %}
            concat(repeat('0', decimal_integers.{{ slot }}_scale + 1 - length({{ absolute }})), {{ absolute }})
                as {{ slot }}_digits{{ ',' if not loop.last }}
            {%- endfor %}
        from decimal_integers
    {%- endset %}
    {%- do steps.append(('decimal_digits', step)) %}

    {%- set step %}
        select
            decimal_digits.*,
            {%- for slot in slots %}
            coalesce(
                {%- if slot.name in object_slots %}
                decimal_digits.{{ slot.name }}_object_text,
                {%- endif %}
                {%- if slot.name in decimal_slots %}
                {{ cdc_decimal_text_from_digits(
                    'decimal_digits.' ~ slot.name ~ '_unscaled',
                    'decimal_digits.' ~ slot.name ~ '_digits',
                    'decimal_digits.' ~ slot.name ~ '_scale'
                ) | indent(16) }},
                {%- endif %}
                decimal_digits.{{ slot.name }}_time_text,
                decimal_digits.{{ slot.name }}_raw_text
            ) as {{ slot.name }}_text{{ ',' if not loop.last }}
            {%- endfor %}
        from decimal_digits
    {%- endset %}
    {%- do steps.append(('decoded_changes', step)) %}

    {%- set step %}
        select
            decoded_changes.*,
            {%- for column in columns %}
            -- column {{ loop.index }} is carried unless absent or Debezium's "unchanged" placeholder
            {%- if column.is_source_table %}
            true as _after_has_{{ loop.index }},
            {%- else %}
            coalesce(map_contains_key(decoded_changes.after_image, {{ cdc_sql_string(column.name) }}), false)
            and coalesce(
                decoded_changes._after_{{ loop.index }}_text not in ({{ placeholder }}, base64(cast({{ placeholder }} as binary))),
                true
            ) as _after_has_{{ loop.index }},
            {%- endif %}
            {%- endfor %}
            {%- for column in key_columns %}
            {%- set after_index = cdc_column_position(columns, column.name) %}
            -- the key as the change names it: the new key for inserts and updates, the old one for deletes
            case decoded_changes.operation
                when 'delete'
                    then coalesce(
                        decoded_changes._before_key_{{ loop.index }}_text,
                        decoded_changes._kafka_key_{{ loop.index }}_text,
                        decoded_changes._after_{{ after_index }}_text
                    )
                when 'update'
                    then coalesce(
                        decoded_changes._after_{{ after_index }}_text,
                        decoded_changes._before_key_{{ loop.index }}_text,
                        decoded_changes._kafka_key_{{ loop.index }}_text
                    )
                else coalesce(decoded_changes._after_{{ after_index }}_text, decoded_changes._kafka_key_{{ loop.index }}_text)
            end as _key_text_{{ loop.index }}{{ ',' if not loop.last }}
            {%- endfor %}
        from decoded_changes
    {%- endset %}
    {%- do steps.append(('keyed_changes', step)) %}

    {%- set step %}
        select
            keyed_changes.*,
            {%- for column in columns %}
            {{ cdc_typed_value('keyed_changes._after_' ~ loop.index ~ '_text', column.data_type, column.encoding) }} as _after_value_{{ loop.index }},
            {%- endfor %}
            {%- for column in key_columns %}
            {{ cdc_typed_value('keyed_changes._key_text_' ~ loop.index, column.data_type, column.encoding) }} as _key_value_{{ loop.index }},
            {{ cdc_typed_value('keyed_changes._before_key_' ~ loop.index ~ '_text', column.data_type, column.encoding) }} as _before_key_value_{{ loop.index }}{{ ',' if not loop.last }}
            {%- endfor %}
        from keyed_changes
    {%- endset %}
    {%- do steps.append(('typed_changes', step)) %}

    {#- per declared column: carried (or a key) with a value that is not null yet does not type -#}
    {%- set step %}
        select
            typed_changes.*,
            {%- for column in columns %}
            {{ _cdc_uncastable(columns, key_columns, column.name, 'typed_changes') }} as _uncastable_{{ loop.index }},
            {%- endfor %}
            {{ _cdc_any_missing_key(key_columns, 'typed_changes') }} as _missing_key
        from typed_changes
    {%- endset %}
    {%- do steps.append(('checked_values', step)) %}

    {%- set step %}
        select
            checked_values.*,
            case
                {%- if claimants %}
                when not ({{ cdc_source_matches(target_table, 'checked_values') }}) then 'unknown_table'
                {%- endif %}
                when checked_values.operation = 'truncate' then null
                when checked_values._missing_key then 'missing_key'
                when {{ _cdc_any_uncastable(columns, 'checked_values') }} then 'uncastable_value'
            end as rejection_reason,
            case
                {%- if claimants %}
                when not ({{ cdc_source_matches(target_table, 'checked_values') }})
                    then concat_ws('.', checked_values.source_database, checked_values.source_schema, checked_values.source_table)
                {%- endif %}
                when checked_values.operation = 'truncate' then null
                when checked_values._missing_key
                    then concat_ws(
                        ', ',
                        {%- for column in key_columns %}
                        if(checked_values._key_text_{{ loop.index }} is null, {{ cdc_sql_string(column.name) }}, null){{ ',' if not loop.last }}
                        {%- endfor %}
                    )
                {#- one description written once over the uncastable columns, not once per declared column: the
                    statement of a 78-column table (tests/corpus_targets) is 341 KB instead of 393 KB, and Spark
                    analyses it in 2.1-2.5 s instead of 2.7-3.8 s -#}
                when {{ _cdc_any_uncastable(columns, 'checked_values') }}
                    then array_join(
                        transform(
                            filter(
                                array(
                                    {%- for column in columns | sort(attribute='name') %}
                                    named_struct(
                                        'is_uncastable', checked_values._uncastable_{{ cdc_column_position(columns, column.name) }},
                                        'name', {{ cdc_sql_string(column.name) }},
                                        'declared_type', {{ cdc_sql_string(column.data_type) }}
                                    ){{ ',' if not loop.last }}
                                    {%- endfor %}
                                ),
                                declared_column -> declared_column.is_uncastable
                            ),
                            uncastable_column -> {{ _cdc_type_mismatch('uncastable_column', 'checked_values') | indent(28) }}
                        ),
                        ', '
                    )
            end as rejection_detail,
            checked_values.operation = 'update'
            {%- for column in key_columns %}
            and checked_values._before_key_value_{{ loop.index }} is not null
            {%- endfor %}
            and not (
                {%- for column in key_columns %}
                checked_values._before_key_value_{{ loop.index }} <=> checked_values._key_value_{{ loop.index }}{{ ' and' if not loop.last }}
                {%- endfor %}
            ) as is_key_change
        from checked_values
    {%- endset %}
    {%- do steps.append(('validated_changes', step)) %}

    {#- a rejected change as parsed, for the quarantine; past this step no image is carried (the -#}
    {#- images are most of a row's width, and only the few rejected changes need them) -#}
    {%- set step %}
        select
            validated_changes.* except (key_image, before_image, after_image),
            if(
                validated_changes.rejection_reason is not null,
                {{ cdc_change_as_json('validated_changes') | indent(16) }},
                null
            ) as rejected_change
        from validated_changes
    {%- endset %}
    {%- do steps.append(('described_changes', step)) %}

    {#- a change of key is a delete of the old key plus an upsert of the new one -#}
    {%- set step %}
        select
            described_changes.*,
            key_change_row.is_old_key_delete,
            case
                when described_changes.operation = 'truncate' then 'truncate_table'
                when described_changes.operation = 'delete' or key_change_row.is_old_key_delete then 'delete_row'
                when described_changes.operation in ('insert', 'snapshot') then 'replace_row'
                when {% for column in columns %}described_changes._after_has_{{ loop.index }}{{ ' and ' if not loop.last }}{% endfor %}
                    then 'replace_row'
                {%- if moves_whole_rows %}
                when described_changes.rejection_reason is null and described_changes.is_key_change then 'move_row'
                {%- endif %}
                else 'update_columns'
            end as change_kind
        from described_changes
        lateral view explode(
            if(
                described_changes.rejection_reason is null and described_changes.is_key_change,
                array(true, false),
                array(false)
            )
        ) key_change_row as is_old_key_delete
    {%- endset %}
    {%- do steps.append(('change_rows', step)) %}

    {#- a rejected change carries no state: the fold passes over it (see cdc_fold_row_states) -#}
    {%- set step %}
        select
            {%- for column in columns %}
            {%- set key_index = cdc_column_position(key_columns, column.name) %}
            {%- if key_index %}
            case
                when change_rows.change_kind = 'truncate_table' or change_rows.rejection_reason is not null then null
                when change_rows.is_old_key_delete then change_rows._before_key_value_{{ key_index }}
                else change_rows._key_value_{{ key_index }}
            end as {{ cdc_quote(column.name) }},
            {%- else %}
            if(
                change_rows.change_kind in ('replace_row', 'update_columns', 'move_row') and change_rows.rejection_reason is null,
                change_rows._after_value_{{ loop.index }},
                null
            ) as {{ cdc_quote(column.name) }},
            {%- endif %}
            {%- endfor %}
            if(
                change_rows.change_kind in ('replace_row', 'delete_row') and change_rows.rejection_reason is null,
                named_struct('version', change_rows.change_version, 'is_delete', change_rows.change_kind = 'delete_row'),
                null
            ) as _cdc_reset,
            if(
                change_rows.change_kind in ('update_columns', 'move_row') and change_rows.rejection_reason is null,
                {{ _cdc_column_versions_struct(columns, key_names, 'change_rows', 'if(change_rows._after_has_{index}, change_rows.change_version, null)') }},
                null
            ) as _cdc_column_versions,
            if(
                change_rows.rejection_reason is null,
                named_struct(
                    'version', change_rows.change_version,
                    'operation', change_rows.operation,
                    'commit_timestamp', change_rows.commit_timestamp
                ),
                null
            ) as _cdc_last_change,
            change_rows.loaded_at as _cdc_loaded_at,
            if(change_rows.change_kind = 'truncate_table', change_rows.change_version, null) as _cdc_truncated_before,
            {%- if moves_whole_rows %}
            if(
                change_rows.change_kind = 'move_row',
                named_struct(
                    {%- for column in key_columns %}
                    {{ cdc_sql_string(column.name) }}, change_rows._before_key_value_{{ loop.index }}{{ ',' if not loop.last }}
                    {%- endfor %}
                ),
                null
            ) as _cdc_moved_from,
            {%- endif %}
            change_rows.change_kind,
            change_rows.rejection_reason,
            change_rows.rejection_detail,
            change_rows.raw_record_id,
            change_rows.row_index,
            change_rows.flavour,
            change_rows.source_database,
            change_rows.source_schema,
            change_rows.source_table,
            change_rows.operation,
            change_rows.rejected_change,
            change_rows.change_version,
            change_rows.commit_timestamp,
            change_rows.transaction_id,
            change_rows.landing_file,
            change_rows.landing_position,
            change_rows.kafka_topic,
            change_rows.kafka_partition,
            change_rows.kafka_offset,
            change_rows.loaded_at
        from change_rows
    {%- endset %}
    {%- do steps.append(('final', step)) %}

    {{ cdc_nested_steps(steps) }}
{% endmacro %}


{% macro cdc_tables_with_new_changes(loaded_after=none) %}
    {#-
        The registry entries (cdc_target_tables) that have changes staged after `loaded_after`
        (a timestamp literal; none: any change), each as {target_table, claimants,
        staging_models, schema_names}, ready for cdc_typed_changes: one query over the staging
        models tells which source tables (database, schema, table) hold new changes, in which
        staging models, with which field schema names (cdc_schema_names_seen); no query when
        this run's staging noted every change staged since (cdc_staged_sources_since). A table is
        listed when a new change is its own; the first registry entry (by name) that names a
        source table name also gets the changes of that name that no entry claims (claimants:
        the entries that could name the same tables, so that those are logged as
        unknown_table). So a run types only the tables that have something new, reads only
        the staging models that hold it, and writes only the decodings its values need. A
        source table that two entries claim (overlapping patterns) stops the run. When no
        probe can run (not executing, a unit test, staging not built yet): every entry, every
        staging model, every decoding.
    -#}
    {%- set target_tables = cdc_target_tables() -%}
    {%- set listed = [] -%}
    {#- the source tables with new changes, per staging model (none: no probe can run; an if
        and no early return, which sqlfluff's templater would let escape to the caller) -#}
    {%- set sources = none -%}
    {%- if execute and model.resource_type != 'unit_test' and cdc_staging_is_built() -%}
        {#- what this run's staging noted, when that is every change staged after loaded_after; else one probe -#}
        {%- set sources = cdc_staged_sources_since(loaded_after) -%}
        {%- if sources is none -%}
            {%- set reads = [] -%}
            {%- for model_name in var('cdc_staging_models') -%}
                {%- do reads.append({
                    'staging_model': model_name, 'relation': ref(model_name),
                    'where': 'staged_records.loaded_at > ' ~ loaded_after if loaded_after else none,
                }) -%}
            {%- endfor -%}
            {%- set sources = cdc_staged_sources(reads) -%}
        {%- endif -%}
        {%- for source in sources if source.claimed_by | length > 1 -%}
            {{ exceptions.raise_compiler_error(
                "source table '" ~ source.source_name ~ "' (staged in " ~ source.staging_model ~ ") is claimed by models "
                ~ source.claimed_by | join(', ') ~ ": change their meta.cdc.source so that one table claims it"
            ) }}
        {%- endfor -%}
    {%- endif -%}
    {%- for target_table in target_tables -%}
        {%- set claimants = [] -%}
        {%- for other in target_tables if _cdc_may_name_same_tables(target_table, other) | trim == 'true' -%}
            {%- do claimants.append(other) -%}
        {%- endfor -%}
        {%- if sources is none -%}
            {%- do listed.append({
                'target_table': target_table, 'claimants': claimants,
                'staging_models': none, 'schema_names': none,
            }) -%}
        {%- else -%}
            {%- set staging_models = [] -%}
            {%- set names_json = [] -%}
            {%- set has_unclaimed = namespace(found=false) -%}
            {%- for source in sources if target_table.name in source.named_by -%}
                {%- set claimed_by = source.claimed_by -%}
                {%- if target_table.name in claimed_by or (not claimed_by and source.named_by[0] == target_table.name) -%}
                    {%- if source.staging_model not in staging_models -%}
                        {%- do staging_models.append(source.staging_model) -%}
                    {%- endif -%}
                    {%- do names_json.append(source.schema_names) -%}
                    {%- if not claimed_by -%}
                        {%- set has_unclaimed.found = true -%}
                    {%- endif -%}
                {%- endif -%}
            {%- endfor -%}
            {%- if staging_models -%}
                {%- do listed.append({
                    'target_table': target_table,
                    'claimants': claimants if has_unclaimed.found else none,
                    'staging_models': staging_models,
                    'schema_names': cdc_schema_names_from_json(names_json),
                }) -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(listed) }}
{% endmacro %}


{% macro cdc_staged_sources(reads) %}
    {#-
        The source tables (database, schema, table, as staged) that have staged changes in
        `reads`, a list of {staging_model, relation, where (a condition on its rows, alias
        staged_records, or none)}: one query. Each as {staging_model, source_name,
        has_truncations, schema_names (cdc_schema_names_seen), claimed_by (the registry entries
        whose source it is: cdc_source_matches), named_by (those that name its table name:
        cdc_source_names_match)}, both in the registry's order.
    -#}
    {%- set target_tables = cdc_target_tables() -%}
    {%- set query -%}
        select
            new_sources.staging_model,
            new_sources.schema_names,
            {%- for kind, matches in [('claimed_by', cdc_source_matches), ('named_by', cdc_source_names_match)] %}
            to_json(filter(
                array(
                    {%- for target_table in target_tables %}
                    if({{ matches(target_table, 'new_sources') | indent(20) }}, {{ cdc_sql_string(target_table.name) }}, null),
                    {%- endfor %}
                    cast(null as string)
                ),
                claimant -> claimant is not null
            )) as {{ kind }},
            {%- endfor %}
            concat_ws('.', new_sources.source_database, new_sources.source_schema, new_sources.source_table) as source_name,
            new_sources.has_truncations
        from (
            {%- for read in reads %}
            select
                coalesce(staged_records.source_table_partition, '') as source_table_partition,
                {{ cdc_sql_string(read.staging_model) }} as staging_model,
                staged_records.source_database,
                staged_records.source_schema,
                staged_records.source_table,
                coalesce(max(staged_records.operation = 'truncate'), false) as has_truncations,
                {{ cdc_schema_names_seen('staged_records') | indent(16) }} as schema_names
            from {{ read.relation }} as staged_records
            where
                staged_records.record_outcome = 'change'
                {%- if read.where %}
                and {{ read.where }}
                {%- endif %}
            group by
                coalesce(staged_records.source_table_partition, ''),
                staged_records.source_database,
                staged_records.source_schema,
                staged_records.source_table
            {%- if not loop.last %}
            union all
            {%- endif %}
            {%- endfor %}
        ) as new_sources
    {%- endset -%}
    {%- set sources = [] -%}
    {%- for staging_model, schema_names, claimed_by, named_by, source_name, has_truncations in run_query(query).rows -%}
        {%- do sources.append({
            'staging_model': staging_model, 'schema_names': schema_names, 'claimed_by': fromjson(claimed_by),
            'named_by': fromjson(named_by), 'source_name': source_name, 'has_truncations': has_truncations,
        }) -%}
    {%- endfor -%}
    {{ return(sources) }}
{% endmacro %}


{% macro cdc_any_change_staged_after(loaded_after=none) %}
    {#-
        True when a staging model holds a change (of any table) staged after `loaded_after` (a
        timestamp literal; none: any change). One query that stops at the first such change:
        with nothing new in nine staging models about 0.6 s warm, where a probe that aggregates
        the new changes (cdc_tables_with_new_changes) takes about 1 s. No query when this
        run's staging noted every change staged since (cdc_staged_sources_since).
    -#}
    {%- set noted = cdc_staged_sources_since(loaded_after) if execute else none -%}
    {%- if noted is not none -%}
        {{ return(noted | length > 0) }}
    {%- endif -%}
    {%- set any_change -%}
        {%- for model_name in var('cdc_staging_models') %}
        (
            select 1 as found
            from {{ ref(model_name) }} as staged_records
            where staged_records.record_outcome = 'change'
            {%- if loaded_after %}
                and staged_records.loaded_at > {{ loaded_after }}
            {%- endif %}
            limit 1
        )
        {%- if not loop.last %}
        union all
        {%- endif %}
        {%- endfor %}
    {%- endset -%}
    {{ return(run_query(any_change).rows | length > 0) }}
{% endmacro %}


{% macro _cdc_may_name_same_tables(first, second) -%}
    {#- Renders true when two registry entries may name one source table name: a shared table name, or a pattern on either side. -#}
    {%- set has_pattern = (first.sources | selectattr('table_pattern') | list) or (second.sources | selectattr('table_pattern') | list) -%}
    {%- set first_tables = first.sources | selectattr('table') | map(attribute='table') | list -%}
    {%- set second_tables = second.sources | selectattr('table') | map(attribute='table') | list -%}
    {%- if has_pattern or (first_tables | select('in', second_tables) | list) -%}
        true
    {%- else -%}
        false
    {%- endif -%}
{%- endmacro %}


{% macro cdc_schema_names_seen(relation_alias) -%}
    {#-
        Aggregate over staged changes (`relation_alias`): which field schema names (logical
        types such as io.debezium.time.Date) each column's values carry, and which columns have
        a value that is a JSON object (object_valued_columns: the name `json object`), as JSON
        text [[column, name], ...]. The typing writes the decodings of those names only
        (cdc_typed_changes' schema_names): each one costs generated code, compiled every run.
        A change with neither (JSON without a schema: all of the benchmark's) adds nothing, and skips the
        lambdas: Spark runs them interpreted (1.1M Debezium changes, warm: 1.7-1.8 s against
        2.3-2.5 s).
    -#}
    to_json(array_distinct(flatten(collect_set(if(
        {{ relation_alias }}.field_schemas is null and {{ relation_alias }}.object_valued_columns is null,
        null,
        concat(
            coalesce(
                transform(
                    map_entries(map_filter({{ relation_alias }}.field_schemas, (column_name, field_schema) -> field_schema.name is not null)),
                    schema_entry -> array(schema_entry.key, schema_entry.value.name)
                ),
                cast(array() as array<array<string>>)
            ),
            coalesce(
                transform({{ relation_alias }}.object_valued_columns, column_name -> array(column_name, 'json object')),
                cast(array() as array<array<string>>)
            )
        )
    )))))
{%- endmacro %}


{% macro cdc_schema_names_from_json(texts) %}
    {#- {column name: [field schema names]} from texts of cdc_schema_names_seen (nulls ignored). -#}
    {%- set names = {} -%}
    {%- for text in texts if text -%}
        {%- for column_name, name in fromjson(text) -%}
            {%- set column_names = names.setdefault(column_name, []) -%}
            {%- if name not in column_names -%}
                {%- do column_names.append(name) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endfor -%}
    {{ return(names) }}
{% endmacro %}


{% macro cdc_staging_is_built() %}
    {#- True when executing a model (not a unit test) and every staging model's table exists, so that a probe can read them. -#}
    {%- if not execute or model.resource_type == 'unit_test' -%}
        {{ return(false) }}
    {%- endif -%}
    {%- for model_name in var('cdc_staging_models') -%}
        {%- if load_relation(ref(model_name)) is none -%}
            {{ return(false) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(true) }}
{% endmacro %}


{% macro cdc_checked_through(relation) %}
    {#-
        The staging time up to which a log of checked changes (int_changes_checked)
        has checked every staged change: the larger of the table property
        cdc.checked_through (set after each run by cdc_mark_checked_through) and the newest
        loaded_at it holds, as a timestamp literal; none when neither exists. A run stopped
        between its insert and the property reads its own rows, so it never logs a change twice.
    -#}
    {%- set logged = cdc_watermark(relation, 'loaded_at') -%}
    {%- set property = run_query("show tblproperties " ~ relation ~ " ('cdc.checked_through')").columns[1].values()[0] -%}
    {%- if property is none or not (property | string)[:1].isdigit() -%}
        {{ return(logged) }}
    {%- endif -%}
    {%- set checked = "timestamp'" ~ property ~ "'" -%}
    {{ return(checked if logged is none or checked > logged else logged) }}
{% endmacro %}


{% macro cdc_mark_checked_through(relation) %}
    {#-
        Post-hook: records that every change staged so far has been checked (see
        cdc_checked_through): staged up to this run's staging time, since every staging model
        of the run stages at that time and ran before the log (cdc_record_checked_through). No
        query: the mark used to be the newest staged time, read from every staging model.
    -#}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {{ return(cdc_record_checked_through(relation)) }}
{% endmacro %}


{% macro cdc_staged_changes_of(target_table, loaded_after=none, claimants=none, staging_models=none) %}
    {#-
        The staged changes of one target table's source tables (their staging partitions),
        staged after `loaded_after` when given. With `claimants` (registry entries that may
        name the same source tables), also the changes of those partitions that none of them
        claims (another database or schema), when no claimant before it by name names them. staging_models: the staging models to read, when a probe knows which hold
        such changes (none or empty: every model of var cdc_staging_models). Spark pushes the
        typing above into each staging model of the union, so every model read here is typed,
        planned and compiled once more: measured on a 5-column table, 2.5 MB of generated
        code for three models.
    -#}
    {%- set known_models = var('cdc_staging_models') -%}
    {%- for model_name in staging_models or [] if model_name not in known_models -%}
        {{ exceptions.raise_compiler_error(
            "cdc_staged_changes_of: staging model '" ~ model_name ~ "' is not in var cdc_staging_models " ~ known_models
        ) }}
    {%- endfor -%}
    {%- for model_name in staging_models or known_models %}
    select *
    from {{ ref(model_name) }} as staged_records
    where {{ _cdc_staged_changes_condition(target_table, 'staged_records', loaded_after, claimants) | indent(8) }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{% endmacro %}


{% macro _cdc_staged_changes_condition(target_table, relation, loaded_after=none, claimants=none) -%}
    {#-
        The condition of cdc_staged_changes_of over a staging model's rows (`relation`): its
        changes, and with `claimants` also the changes of a source table name it shares with
        them that none of them claims, when no claimant before it (by name) names that table.
    -#}
    {{ relation }}.record_outcome = 'change'
    and {{ cdc_source_names_match(target_table, relation) | indent(4) }}
    {%- if loaded_after %}
    and {{ relation }}.loaded_at > {{ loaded_after }}
    {%- endif %}
    and (
        {{ cdc_source_matches(target_table, relation) | indent(8) }}
        {%- if claimants %}
        or (
            not (
                {%- for claimant in claimants %}
                {{ cdc_source_matches(claimant, relation) | indent(16) }}{{ ' or' if not loop.last }}
                {%- endfor %}
            )
            {%- for claimant in claimants if claimant.name < target_table.name %}
            and not {{ cdc_source_names_match(claimant, relation) | indent(12) }}
            {%- endfor %}
        )
        {%- endif %}
    )
{%- endmacro %}


{% macro cdc_source_matches(target_table, relation) -%}
    {#- True for a staged change (in `relation`) of one of the source tables of `target_table` (levels a source leaves out match anything). -#}
    (
        {%- for source in target_table.sources %}
        (
            {{ _cdc_name_matches(relation ~ '.source_table', source.table, source.table_pattern) }}
            {%- if source.database or source.database_pattern %}
            and {{ _cdc_name_matches(relation ~ '.source_database', source.database, source.database_pattern) }}
            {%- endif %}
            {%- if source.schema %}
            and {{ _cdc_name_matches(relation ~ '.source_schema', source.schema, none) }}
            {%- endif %}
        ){{ ' or' if not loop.last }}
        {%- endfor %}
    )
{%- endmacro %}


{% macro cdc_source_names_match(target_table, relation) -%}
    {#-
        True for a staged record (in `relation`) whose source table name is one that
        `target_table` names (its staging partition, whatever the database and schema): a
        condition on the partition column, so Spark reads only those partitions.
    -#}
    {%- set tables = target_table.sources | selectattr('table') | map(attribute='table') | unique | list -%}
    {%- set patterns = target_table.sources | selectattr('table_pattern') | map(attribute='table_pattern') | unique | list -%}
    {#- on one line: callers put it into a WHERE of their own -#}
    (
    {%- if tables -%}
        {{ relation }}.source_table_partition in ({{ cdc_sql_string_list(tables) }})
    {%- endif -%}
    {%- for pattern in patterns -%}
        {{ ' or ' if tables or not loop.first }}{{ _cdc_name_matches(relation ~ '.source_table_partition', none, pattern) }}
    {%- endfor -%}
    )
{%- endmacro %}


{% macro _cdc_name_matches(name_column, name, pattern) -%}
    {#- A source name (any case) is `name` (lower case), or matches the whole regular expression `pattern` in any case. -#}
    {%- if pattern -%}
        coalesce({{ name_column }} rlike {{ cdc_sql_string('(?i)^(?:' ~ pattern ~ ')$') }}, false)
    {%- else -%}
        lower({{ name_column }}) <=> {{ cdc_sql_string(name) }}
    {%- endif -%}
{%- endmacro %}


{% macro cdc_quote(name) -%}
    {#- A column name from YAML as a Spark identifier: backticks, with backticks doubled. -#}
    `{{ name | string | replace('`', '``') }}`
{%- endmacro %}


{% macro cdc_column_position(columns, name) -%}
    {#- 1-based position of column `name` in `columns` (dicts with a name), or '' when absent. -#}
    {#- (a filtered loop would count only the matching items) -#}
    {%- for column in columns -%}{%- if column.name == name -%}{{ loop.index }}{%- endif -%}{%- endfor -%}
{%- endmacro %}


{% macro _cdc_any_missing_key(key_columns, relation) -%}
    ({% for column in key_columns %}{{ relation }}._key_text_{{ loop.index }} is null{{ ' or ' if not loop.last }}{% endfor %})
{%- endmacro %}


{% macro _cdc_uncastable(columns, key_columns, name, relation) -%}
    {#- The column is carried (or is a key column) with a value that is not null yet does not type. -#}
    {%- set after_index = cdc_column_position(columns, name) -%}
    {%- set key_index = cdc_column_position(key_columns, name) -%}
    (
        ({{ relation }}._after_has_{{ after_index }} and {{ relation }}._after_{{ after_index }}_text is not null and {{ relation }}._after_value_{{ after_index }} is null)
        {%- if key_index %}
        or ({{ relation }}._key_text_{{ key_index }} is not null and {{ relation }}._key_value_{{ key_index }} is null)
        {%- endif %}
    )
{%- endmacro %}


{% macro _cdc_type_mismatch(column, relation) -%}
    {#-
        `name (type it arrives as, declared type)` of `column`, the name of a struct with the
        column's name and declared_type: the field schema's logical name, else its type (a Canal
        mysqlType), else the JSON value's own type (schema_of_variant), so that a column whose
        type changed mid-stream names the new type.
    -#}
    {%- set field = relation ~ '.field_schemas[' ~ column ~ '.name]' -%}
    concat(
        {{ column }}.name, ' (',
        coalesce(
            nullif({{ field }}.name, 'canal.mysqlType'),
            {{ field }}.type,
            lower(schema_of_variant(coalesce(
                {{ relation }}.after_image[{{ column }}.name],
                {{ relation }}.before_image[{{ column }}.name],
                {{ relation }}.key_image[{{ column }}.name]
            ))),
            'unknown'
        ),
        ', declared ', {{ column }}.declared_type, ')'
    )
{%- endmacro %}


{% macro _cdc_any_uncastable(columns, relation) -%}
    ({% for column in columns %}{{ relation }}._uncastable_{{ loop.index }}{{ ' or ' if not loop.last }}{% endfor %})
{%- endmacro %}


{% macro _cdc_column_versions_struct(columns, key_names, relation, version_template) -%}
    {#-
        named_struct of one version per declared non-key column; version_template is SQL with
        `{index}` standing for the column's 1-based position among all declared columns. The
        last field, _cdc_none, keeps the struct valid for a table whose columns are all keys.
    -#}
    named_struct(
        {%- for column in columns if column.name not in key_names %}
        {{ cdc_sql_string(column.name) }}, {{ version_template | replace('{index}', cdc_column_position(columns, column.name) | string) }},
        {%- endfor %}
        '_cdc_none', cast(null as {{ cdc_change_version_type() }})
    )
{%- endmacro %}


{% macro cdc_keep_rows_where(condition) -%}
    {#-
        A lateral view that keeps the rows where `condition` holds: put it after the FROM of a
        select over cdc_typed_changes' output, instead of a WHERE. A WHERE on its derived
        columns (rejection_reason) makes Spark's optimizer rewrite the condition through every
        typing step (measured: out of memory for a 3-column table); a generator is left alone.
    -#}
    lateral view explode(if({{ condition }}, array(true), array())) kept_rows as is_kept
{%- endmacro %}


{% macro cdc_change_as_json(relation) %}
    {#- A staged change as parsed, as JSON text: its operation and its key, before and after images. relation: the name of a relation with staging's columns. -#}
    {%- if relation is not string or not relation -%}
        {{ exceptions.raise_compiler_error("cdc_change_as_json: relation must be the name of a relation with staging's columns, got " ~ relation) }}
    {%- endif -%}
    to_json(
        named_struct(
            'operation', {{ relation }}.operation,
            'key', {{ relation }}.key_image,
            'before', {{ relation }}.before_image,
            'after', {{ relation }}.after_image
        )
    )
{%- endmacro %}
