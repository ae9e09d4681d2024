; Included by electron-builder's NSIS script (electron-builder.yml: nsis.include).
; The installer offers to put the scan2mesh command (resources\bin\scan2mesh.cmd) on the user's PATH; the
; uninstaller takes the entry off again. PowerShell edits the per-user PATH (no admin rights needed, as
; the install is per user) and tells running programs about the change. An update keeps the choice made.

!macro customInstall
  ${ifNot} ${isUpdated}
    IfSilent scan2mesh_path_done
    MessageBox MB_YESNO|MB_ICONQUESTION "Add the scan2mesh command to your PATH, so that scripts and terminals can run it?" /SD IDNO IDNO scan2mesh_path_done
    nsExec::ExecToLog `powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command "$$d = '$INSTDIR\resources\bin'; $$p = [Environment]::GetEnvironmentVariable('Path', 'User'); if (-not $$p) { $$p = '' }; if (($$p -split ';') -notcontains $$d) { [Environment]::SetEnvironmentVariable('Path', (($$p.TrimEnd(';') + ';' + $$d).TrimStart(';')), 'User') }"`
    scan2mesh_path_done:
  ${endIf}
!macroend

!macro customUnInstall
  ${ifNot} ${isUpdated}
    nsExec::ExecToLog `powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command "$$d = '$INSTDIR\resources\bin'; $$p = [Environment]::GetEnvironmentVariable('Path', 'User'); if ($$p) { $$n = ($$p -split ';' | Where-Object { $$_ -and $$_ -ne $$d }) -join ';'; if ($$n -ne $$p) { [Environment]::SetEnvironmentVariable('Path', $$n, 'User') } }"`
  ${endIf}
!macroend
